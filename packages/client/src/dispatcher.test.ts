import { S2SPError } from '@s2sp/core';
import { codeOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { SYNC_RESULT as syncObject } from '../test/sync-fixture.js';
import { DdiBuffer } from './ddi-buffer.js';
import { S2SPDispatcher, type S2SPRefusal, type S2SPToolServer } from './dispatcher.js';

/** A server that declares S2SP with these roles (PROTOCOL §7.7). */
function declaring(roles: string[]): S2SPToolServer {
  return {
    capabilities: {
      tools: {},
      experimental: { s2sp: { version: '0.2', dataPlanePath: '/s2sp/data/', roles } },
    },
  };
}
const CONSUMER = declaring(['consumer']);

const asyncObject = {
  ...syncObject,
  body: undefined,
  resource_url: 'http://h/s2sp/data/t',
  expires_at: 'x',
};
delete (asyncObject as Record<string, unknown>).body;

describe('S2SPDispatcher.onToolResult', () => {
  it('moves a sync body (JSON text) into the buffer and points resource_url at a handle', () => {
    const dispatcher = new S2SPDispatcher();
    const text = dispatcher.onToolResult('get_alerts', JSON.stringify(syncObject));
    expect(text).not.toContain('BODY-');
    const seen = JSON.parse(text) as { resource_url: string; abstract: unknown };
    expect(seen.resource_url).toMatch(/^ddi:\/\//);
    expect(seen.abstract).toEqual(syncObject.abstract);
    expect(dispatcher.pending).toBe(1);
    expect(dispatcher.buffer.take(seen.resource_url)).toEqual(syncObject.body);
  });

  it('rewrites both the text block and structuredContent of an MCP result, with one handle', () => {
    const dispatcher = new S2SPDispatcher();
    const result = {
      content: [{ type: 'text', text: JSON.stringify(syncObject) }],
      structuredContent: syncObject,
    };
    const out = dispatcher.onToolResult('get_alerts', result) as {
      content: { text: string }[];
      structuredContent: unknown;
    };
    expect(JSON.stringify(out)).not.toContain('BODY-');
    const fromText = JSON.parse(out.content[0]!.text) as { resource_url: string };
    expect((out.structuredContent as { resource_url: string }).resource_url).toBe(
      fromText.resource_url,
    );
    expect(dispatcher.pending).toBe(1);
    // The input is left as it was.
    expect(result.structuredContent.body).toHaveLength(2);
  });

  it('shows the model the same text when the body is in structuredContent only (§7.11)', () => {
    const { body: _body, ...bodyless } = syncObject;
    const both = {
      content: [{ type: 'text', text: JSON.stringify(syncObject) }],
      structuredContent: syncObject,
    };
    const declared = { ...both, content: [{ type: 'text', text: JSON.stringify(bodyless) }] };
    type Out = { content: { text: string }[]; structuredContent: Record<string, unknown> };
    const dispatcher = new S2SPDispatcher();
    const expected = dispatcher.onToolResult('get_alerts', both) as Out;
    const out = dispatcher.onToolResult('get_alerts', declared) as Out;
    const handle = out.structuredContent.resource_url as string;
    expect(handle).toMatch(/^ddi:\/\//);
    expect(handle).not.toBe(expected.structuredContent.resource_url);
    // Byte for byte what the §2 result becomes, but for the handle.
    const withHandle = (text: string) =>
      text.replace(handle, String(expected.structuredContent.resource_url));
    expect(withHandle(out.content[0]!.text)).toBe(expected.content[0]!.text);
    expect(JSON.parse(out.content[0]!.text).resource_url).toBe(handle);
    expect(dispatcher.buffer.take(handle)).toEqual(syncObject.body);
  });

  it('leaves a bodyless text alone without a sync structuredContent to take the body from', () => {
    const { body: _body, ...bodyless } = syncObject;
    const text = JSON.stringify(bodyless);
    const dispatcher = new S2SPDispatcher();
    for (const result of [
      text,
      { content: [{ type: 'text', text }] },
      { content: [{ type: 'text', text }], structuredContent: bodyless },
      { content: [{ type: 'text', text }], structuredContent: asyncObject },
    ])
      expect(dispatcher.onToolResult('t', result)).toEqual(result);
    expect(dispatcher.pending).toBe(0);
  });

  it('rewrites a sync object passed already parsed', () => {
    const dispatcher = new S2SPDispatcher();
    const out = dispatcher.onToolResult('t', syncObject) as Record<string, unknown>;
    expect(out.body).toBeUndefined();
    expect(out.resource_url).toMatch(/^ddi:\/\//);
  });

  it.each([
    ['an async result', JSON.stringify(asyncObject)],
    ['non-JSON text', 'Heat Advisory for Travis county'],
    ['JSON that is not S2SP', '{"body":[{"_row_id":0}],"note":"no abstract"}'],
    ['a JSON array', '[{"_row_id":0,"a":1}]'],
    ['broken JSON', '{"abstract": ['],
  ])('passes %s through untouched', (_name, text) => {
    const dispatcher = new S2SPDispatcher();
    expect(dispatcher.onToolResult('t', text)).toBe(text);
    const result = { content: [{ type: 'text', text }] };
    expect(dispatcher.onToolResult('t', result)).toEqual(result);
    expect(dispatcher.pending).toBe(0);
  });

  it('passes errors, images and other values through untouched', () => {
    const dispatcher = new S2SPDispatcher();
    const error = { isError: true, content: [{ type: 'text', text: JSON.stringify(syncObject) }] };
    expect(dispatcher.onToolResult('t', error)).toBe(error);
    const image = { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] };
    expect(dispatcher.onToolResult('t', image)).toEqual(image);
    for (const value of [undefined, null, 42, ['x']])
      expect(dispatcher.onToolResult('t', value)).toBe(value);
    expect(dispatcher.pending).toBe(0);
  });
});

describe('S2SPDispatcher.onToolCall', () => {
  it('replaces a ddi:// handle with body_data holding the rows named in abstract_data', () => {
    const dispatcher = new S2SPDispatcher();
    const seen = JSON.parse(dispatcher.onToolResult('get_alerts', JSON.stringify(syncObject))) as {
      resource_url: string;
    };
    const args = dispatcher.onToolCall(
      'draw_chart',
      {
        abstract_data: '[{"_row_id":1,"event":"Heat"}]',
        resource_url: seen.resource_url,
        group_by: 'event',
      },
      CONSUMER,
    );
    expect(args).toEqual({
      abstract_data: '[{"_row_id":1,"event":"Heat"}]',
      group_by: 'event',
      body_data: JSON.stringify([syncObject.body[1]]),
    });
    expect(dispatcher.pending).toBe(0);
  });

  it.each([
    ['not JSON', 'not json'],
    ['broken JSON', '[{"_row_id":1'],
    ['JSON that is not an array', '{"_row_id":1}'],
    ['rows without _row_id', '[{"event":"Heat"}]'],
  ])(
    'passes every row when abstract_data is %s (the consumer reports the problem)',
    (_name, abstractData) => {
      const dispatcher = new S2SPDispatcher();
      const handle = dispatcher.buffer.put(syncObject.body);
      const args = dispatcher.onToolCall(
        'c',
        { abstract_data: abstractData, resource_url: handle },
        CONSUMER,
      );
      expect(JSON.parse(args.body_data as string)).toEqual(syncObject.body);
    },
  );

  it('leaves http(s) URLs, missing and empty arguments alone', () => {
    const dispatcher = new S2SPDispatcher();
    for (const args of [
      { resource_url: 'http://h/s2sp/data/t', abstract_data: '[]' },
      {},
      { resource_url: '' },
      { resource_url: null },
    ]) {
      expect(dispatcher.onToolCall('c', args, CONSUMER)).toBe(args);
    }
  });

  it('fails clearly on a stale handle, where the reference sends an empty body', () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    dispatcher.onToolCall('c', { abstract_data: '[]', resource_url: handle }, CONSUMER);
    expect(
      codeOf(() =>
        dispatcher.onToolCall('c', { abstract_data: '[]', resource_url: handle }, CONSUMER),
      ),
    ).toBe('not_found');
  });

  it('refuses a handle together with body_data', () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    expect(
      codeOf(() =>
        dispatcher.onToolCall(
          'c',
          { abstract_data: '[]', resource_url: handle, body_data: '[]' },
          CONSUMER,
        ),
      ),
    ).toBe('invalid_request');
    expect(dispatcher.buffer.has(handle)).toBe(true);
  });

  it('shares handles between dispatchers that share a buffer', () => {
    const buffer = new DdiBuffer();
    const a = new S2SPDispatcher({ buffer });
    const b = new S2SPDispatcher({ buffer });
    const seen = JSON.parse(a.onToolResult('get', JSON.stringify(syncObject))) as {
      resource_url: string;
    };
    expect(
      JSON.parse(
        b.onToolCall('use', { abstract_data: '[]', resource_url: seen.resource_url }, CONSUMER)
          .body_data as string,
      ),
    ).toEqual([]);
    a.reset();
    expect(b.pending).toBe(0);
  });
});

describe('S2SPDispatcher.onToolCall and the consumer role (PROTOCOL §7.7)', () => {
  const call = (handle: string) => ({ abstract_data: '[{"_row_id":0}]', resource_url: handle });

  it('swaps the rows in for a server that declares the consumer role', () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    const args = dispatcher.onToolCall('c', call(handle), declaring(['consumer', 'resource']));
    expect(JSON.parse(args.body_data as string)).toEqual([syncObject.body[0]]);
  });

  it('refuses a server that declares S2SP without the consumer role, and keeps the handle', () => {
    const refusals: S2SPRefusal[] = [];
    const dispatcher = new S2SPDispatcher({ onRefusal: (refusal) => refusals.push(refusal) });
    const handle = dispatcher.buffer.put(syncObject.body);
    expect(codeOf(() => dispatcher.onToolCall('get', call(handle), declaring(['resource'])))).toBe(
      'forbidden',
    );
    expect(codeOf(() => dispatcher.onToolCall('get', call(handle), declaring([])))).toBe(
      'forbidden',
    );
    expect(refusals.map((r) => [r.toolName, r.error.code])).toEqual([
      ['get', 'forbidden'],
      ['get', 'forbidden'],
    ]);
    expect(dispatcher.buffer.has(handle)).toBe(true);
    // The same handle, then, where it belongs.
    const args = dispatcher.onToolCall('c', call(handle), CONSUMER);
    expect(JSON.parse(args.body_data as string)).toEqual([syncObject.body[0]]);
  });

  it.each([
    ['no capabilities at all (the Python reference)', undefined],
    ['capabilities without S2SP', { tools: {} }],
    [
      'S2SP without a roles list',
      { experimental: { s2sp: { version: '0.2', dataPlanePath: '/s2sp/data/' } } },
    ],
  ])('swaps the rows in for a server that declares %s, as before', (_name, capabilities) => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    const args = dispatcher.onToolCall('c', call(handle), { capabilities });
    expect(JSON.parse(args.body_data as string)).toEqual([syncObject.body[0]]);
  });

  it('reads the 2026-07-28 extension first, then experimental.s2sp', () => {
    const capability = (roles: string[]) => ({
      version: '0.2',
      dataPlanePath: '/s2sp/data/',
      roles,
    });
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    // Resource-only as an extension, whatever the experimental entry says: refused.
    const extensionOnly = {
      capabilities: {
        extensions: { 'io.github.s2sp/s2sp': capability(['resource']) },
        experimental: { s2sp: capability(['consumer']) },
      },
    };
    expect(codeOf(() => dispatcher.onToolCall('a', call(handle), extensionOnly))).toBe('forbidden');
    // A consumer declared as an extension alone: the rows go through.
    const consumer = {
      capabilities: { extensions: { 'io.github.s2sp/s2sp': capability(['consumer']) } },
    };
    const args = dispatcher.onToolCall('c', call(handle), consumer);
    expect(JSON.parse(args.body_data as string)).toEqual([syncObject.body[0]]);
  });

  it('refuses with the error of a capabilities getter that cannot tell, and keeps the handle', () => {
    const refusals: S2SPRefusal[] = [];
    const dispatcher = new S2SPDispatcher({ onRefusal: (refusal) => refusals.push(refusal) });
    const handle = dispatcher.buffer.put(syncObject.body);
    const unknown: S2SPToolServer = {
      get capabilities(): unknown {
        throw new S2SPError('invalid_config', 'cannot read them');
      },
    };
    expect(codeOf(() => dispatcher.onToolCall('c', call(handle), unknown))).toBe('invalid_config');
    expect(refusals.map((r) => r.error.code)).toEqual(['invalid_config']);
    expect(dispatcher.buffer.has(handle)).toBe(true);
  });

  it('does not read the capabilities of a call without a handle', () => {
    const dispatcher = new S2SPDispatcher();
    const unread: S2SPToolServer = {
      get capabilities(): unknown {
        throw new Error('read');
      },
    };
    const args = { resource_url: 'https://h/s2sp/data/t', abstract_data: '[]' };
    expect(dispatcher.onToolCall('c', args, unread)).toBe(args);
  });
});

describe('S2SPDispatcher.onToolCall: handles nested in the arguments', () => {
  it('swaps a resource_url handle inside an object argument, with that object’s abstract_data', () => {
    const dispatcher = new S2SPDispatcher();
    const a = dispatcher.buffer.put(syncObject.body);
    const b = dispatcher.buffer.put(syncObject.body);
    const args = {
      sql: 'SELECT 1',
      tables: {
        first: { resource_url: a },
        second: { resource_url: b, abstract_data: '[{"_row_id":1}]', filter: null },
        remote: 'http://h/s2sp/data/t',
      },
    };
    expect(dispatcher.onToolCall('query_tables', args, CONSUMER)).toEqual({
      sql: 'SELECT 1',
      tables: {
        first: { body_data: JSON.stringify(syncObject.body) },
        second: {
          abstract_data: '[{"_row_id":1}]',
          filter: null,
          body_data: JSON.stringify([syncObject.body[1]]),
        },
        remote: 'http://h/s2sp/data/t',
      },
    });
    // The input is not modified.
    expect(args.tables.first).toEqual({ resource_url: a });
    expect(dispatcher.pending).toBe(0);
  });

  it('swaps inside an argument sent as JSON text, and keeps it JSON text', () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    const args = dispatcher.onToolCall(
      'query_tables',
      { tables: JSON.stringify({ t: { resource_url: handle } }), note: 'ddi:// is a scheme' },
      CONSUMER,
    );
    expect(typeof args.tables).toBe('string');
    expect(JSON.parse(args.tables as string)).toEqual({
      t: { body_data: JSON.stringify(syncObject.body) },
    });
    expect(args.note).toBe('ddi:// is a scheme');
  });

  it('leaves an argument that is broken JSON text around a handle as it is', () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    const args = { tables: `{"t": {"resource_url": "${handle}"}` };
    expect(dispatcher.onToolCall('query_tables', args, CONSUMER)).toBe(args);
    expect(dispatcher.pending).toBe(1);
  });

  it('hands one handle named twice the same rows, and swaps in arrays too', () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    const args = dispatcher.onToolCall(
      'c',
      { sources: [{ resource_url: handle }, { resource_url: handle }] },
      CONSUMER,
    );
    expect(args).toEqual({
      sources: [
        { body_data: JSON.stringify(syncObject.body) },
        { body_data: JSON.stringify(syncObject.body) },
      ],
    });
  });

  it('takes no handle when one of the call’s handles is stale, refused or clashes with body_data', () => {
    const dispatcher = new S2SPDispatcher();
    const live = dispatcher.buffer.put(syncObject.body);
    const used = dispatcher.buffer.put(syncObject.body);
    dispatcher.buffer.take(used);
    const refusals: string[] = [];
    const watched = new S2SPDispatcher({
      buffer: dispatcher.buffer,
      onRefusal: (r) => refusals.push(r.error.code),
    });
    const tables = { a: { resource_url: live }, b: { resource_url: used } };
    expect(codeOf(() => watched.onToolCall('q', { tables }, CONSUMER))).toBe('not_found');
    expect(
      codeOf(() =>
        watched.onToolCall(
          'q',
          { tables: { a: { resource_url: live }, b: { resource_url: live, body_data: '[]' } } },
          CONSUMER,
        ),
      ),
    ).toBe('invalid_request');
    expect(
      codeOf(() =>
        watched.onToolCall('q', { tables: { a: { resource_url: live } } }, declaring(['resource'])),
      ),
    ).toBe('forbidden');
    expect(refusals).toEqual(['not_found', 'invalid_request', 'forbidden']);
    expect(dispatcher.buffer.has(live)).toBe(true);
  });

  it('leaves a handle that is not a resource_url member alone, and arguments without handles as they are', () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(syncObject.body);
    for (const args of [
      { tables: { t: handle } },
      { tables: JSON.stringify({ t: handle }) },
      { tables: { t: { resource_url: 'https://h/s2sp/data/t' } } },
    ]) {
      expect(dispatcher.onToolCall('q', args, CONSUMER)).toBe(args);
    }
    expect(dispatcher.buffer.has(handle)).toBe(true);
  });
});
