import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '../mcp-sdk.js';
import { createS2SPProxy } from '../proxy.js';
import type { CatalogueColumn } from './column-catalogue.js';
import { createLearnedColumns, type LearnedColumns } from './learned-columns.js';
import type { DeclaredTool } from './table-tools.js';
import { createToolState, MAX_STATE_BYTES, MAX_STATE_CLIENTS } from './tool-state.js';

interface Warning {
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

function recorder(): Logger & { warnings: Warning[] } {
  const warnings: Warning[] = [];
  const ignore = () => {};
  return {
    warnings,
    debug: ignore,
    info: ignore,
    error: ignore,
    warn: (message, fields) => warnings.push({ message, fields }),
  };
}

const stateFile = () => join(mkdtempSync(join(tmpdir(), 's2sp-tool-state-')), 'state.json');

const columns = (...names: string[]): CatalogueColumn[] =>
  names.map((name, i) => ({ name, tokensPerRow: i + 1, distinct: 0.5 }));

const DECLARED: Record<string, DeclaredTool> = {
  rows: { source: 'declared', pointer: ['cities'], columns: ['id', 'city'] },
  configured: { source: 'config', columns: [] },
};

/** A state handler over `path` that writes `declared` and `learned`. */
function stateOver(path: string, learned: LearnedColumns, declared = DECLARED) {
  const logger = recorder();
  const state = createToolState({ path, logger }, () => ({ declared, learned }));
  return { state, logger };
}

async function written(learned: LearnedColumns, declared = DECLARED) {
  const path = stateFile();
  const { state } = stateOver(path, learned, declared);
  state.changed();
  await state.flush();
  return { path, json: JSON.parse(readFileSync(path, 'utf8')) };
}

async function loaded(path: string) {
  const learned = createLearnedColumns();
  const { state, logger } = stateOver(path, createLearnedColumns());
  const declared = await state.load(learned);
  return { declared, learned, warnings: logger.warnings };
}

const VALID = {
  version: 1,
  declared: { rows: { source: 'declared', pointer: '/cities', columns: ['id'] } },
  learned: {
    'client:a': { rows: { total: 1, columns: [{ name: 'id', tokensPerRow: 2, distinct: 1 }] } },
  },
};

describe('createToolState: a round trip', () => {
  it('keeps declared tools and each client’s catalogue, least recently used first', async () => {
    const learned = createLearnedColumns();
    learned.set('client:a', 'rows', columns('id', 'city'), 2);
    learned.set('address:127.0.0.1', 'rows', columns('id'), 3);
    learned.set('session:abc', 'rows', columns('id'), 1);
    learned.set('client:a', 'other', columns('x'), 1);
    const { path, json } = await written(learned);
    // A session id is the client's choice, never a key kept across restarts.
    expect(Object.keys(json.learned)).toEqual(['address:127.0.0.1', 'client:a']);
    expect(json.declared).toEqual({
      rows: { source: 'declared', pointer: '/cities', columns: ['id', 'city'] },
      configured: { source: 'config', columns: [] },
    });
    const again = await loaded(path);
    expect(again.warnings).toEqual([]);
    expect(again.declared).toEqual(DECLARED);
    expect(again.learned.entries().map(([client]) => client)).toEqual([
      'address:127.0.0.1',
      'client:a',
    ]);
    expect(again.learned.get('client:a', 'rows')).toEqual({
      total: 2,
      columns: columns('id', 'city'),
    });
    expect(again.learned.get('session:abc', 'rows')).toBeUndefined();
  });

  it('a missing file is no warning', async () => {
    const { declared, learned, warnings } = await loaded(stateFile());
    expect(declared).toEqual({});
    expect(learned.size()).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('a declared tool with a bad pointer is left out, the rest is kept', async () => {
    const path = stateFile();
    writeFileSync(
      path,
      JSON.stringify({
        ...VALID,
        declared: {
          ...VALID.declared,
          bad: { source: 'config', pointer: 'no-slash', columns: [] },
        },
      }),
    );
    const { declared, learned, warnings } = await loaded(path);
    expect(Object.keys(declared)).toEqual(['rows']);
    expect(learned.get('client:a', 'rows')?.total).toBe(1);
    expect(warnings).toEqual([]);
  });
});

describe('createToolState: a file it does not trust is ignored with a warning', () => {
  const column = (patch: Record<string, unknown>) => ({
    ...VALID,
    learned: {
      'client:a': {
        rows: { total: 1, columns: [{ ...VALID.learned['client:a'].rows.columns[0], ...patch }] },
      },
    },
  });
  const tooManyClients = {
    ...VALID,
    learned: Object.fromEntries(
      Array.from({ length: MAX_STATE_CLIENTS + 1 }, (_, i) => [
        `client:${i}`,
        VALID.learned['client:a'],
      ]),
    ),
  };
  const cases: [string, string | Buffer][] = [
    ['damaged JSON', '{"version":1,"declared":{'],
    ['not JSON at all', Buffer.from([0xff, 0xfe, 0x00, 0x01])],
    ['another version', JSON.stringify({ ...VALID, version: 2 })],
    ['a missing part', JSON.stringify({ version: 1, declared: {} })],
    ['a column name over 64 characters', JSON.stringify(column({ name: 'x'.repeat(65) }))],
    ['a distinctiveness over 1', JSON.stringify(column({ distinct: 2 }))],
    ['a negative cost', JSON.stringify(column({ tokensPerRow: -1 }))],
    ['more than 100 clients', JSON.stringify(tooManyClients)],
    [
      'a declared source it does not know',
      JSON.stringify({ ...VALID, declared: { rows: { source: 'model', columns: [] } } }),
    ],
    // Valid JSON, and valid state, but more than 1 MiB of it.
    ['larger than 1 MiB', `${JSON.stringify(VALID)}${' '.repeat(MAX_STATE_BYTES)}`],
  ];

  it.each(cases)('%s', async (_, content) => {
    const path = stateFile();
    writeFileSync(path, content);
    const { declared, learned, warnings } = await loaded(path);
    expect(declared).toEqual({});
    expect(learned.size()).toBe(0);
    expect(warnings.map((w) => w.message)).toEqual([
      'state: the state file is not valid; starting without it',
    ]);
  });

  it('one byte under the cap is read', async () => {
    const path = stateFile();
    const text = JSON.stringify(VALID);
    writeFileSync(path, `${text}${' '.repeat(MAX_STATE_BYTES - text.length)}`);
    const { declared, warnings } = await loaded(path);
    expect(Object.keys(declared)).toEqual(['rows']);
    expect(warnings).toEqual([]);
  });

  it('a path it cannot read (a directory)', async () => {
    const path = stateFile();
    mkdirSync(path);
    const { declared, warnings } = await loaded(path);
    expect(declared).toEqual({});
    expect(warnings.map((w) => w.message)).toEqual([
      'state: cannot read the state file; starting without it',
    ]);
  });
});

describe('createToolState: what is written stays within the caps', () => {
  it('writes the 100 most recently active clients', async () => {
    const learned = createLearnedColumns();
    for (let i = 0; i < 150; i++) learned.set(`client:${i}`, 'rows', columns('id'), 1);
    learned.set('client:3', 'rows', columns('id', 'city'), 2);
    const { json } = await written(learned);
    const kept = Object.keys(json.learned);
    expect(kept).toHaveLength(MAX_STATE_CLIENTS);
    expect(kept).toEqual([...Array.from({ length: 99 }, (_, i) => `client:${i + 51}`), 'client:3']);
  });

  it('leaves out the least recently active clients to stay within 1 MiB', async () => {
    const learned = createLearnedColumns();
    // About 270 kB per client: three fit in 1 MiB, four do not.
    const wide = columns(...Array.from({ length: 25 }, (_, i) => `${i}`.padEnd(64, 'c')));
    for (const client of ['client:a', 'client:b', 'client:c', 'client:d'])
      for (let t = 0; t < 100; t++) learned.set(client, `tool_${t}`, wide, 25);
    learned.set('client:a', 'tool_0', wide, 25);
    const { path, json } = await written(learned);
    expect(Object.keys(json.learned)).toEqual(['client:c', 'client:d', 'client:a']);
    expect(readFileSync(path).length).toBeLessThanOrEqual(MAX_STATE_BYTES);
    expect(readFileSync(path).length).toBeGreaterThan(MAX_STATE_BYTES / 2);
    expect((await loaded(path)).warnings).toEqual([]);
  });
});

describe('a proxy with a --state file it cannot use', () => {
  const TOKEN = 'state-test-token-0123456789';
  const cases = [
    ['damaged', '{"version":1,'],
    ['wrong-shaped', JSON.stringify({ ...VALID, version: 'one' })],
    ['oversized', ' '.repeat(MAX_STATE_BYTES + 1)],
  ];

  it.each(cases)('%s: starts, warns once, serves, and writes a good file', async (_, content) => {
    const path = stateFile();
    writeFileSync(path, content);
    const logger = recorder();
    const proxy = createS2SPProxy({
      upstream: {
        kind: 'stdio',
        command: process.execPath,
        args: [fileURLToPath(new URL('../../test/fixtures/table-server.mjs', import.meta.url))],
      },
      stateFile: path,
      auth: { bearerTokens: [TOKEN] },
      logger,
    });
    try {
      await proxy.start();
      const listener = await proxy.listen();
      const client = new Client({ name: 'state-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(listener.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('declared');
      // A call teaches the proxy this client's catalogue: something to write over the bad file.
      expect((await client.callTool({ name: 'rows' })).isError).toBeFalsy();
      await client.close();
    } finally {
      await proxy.close();
    }
    expect(logger.warnings.map((w) => w.message)).toEqual([
      'state: the state file is not valid; starting without it',
    ]);
    const rewritten = JSON.parse(readFileSync(path, 'utf8'));
    expect(rewritten.version).toBe(1);
    expect(rewritten.declared.declared?.pointer).toBe('/cities');
    expect(Object.keys(rewritten.learned)).toEqual(['client:bearer-token-1']);
  });
});
