import { PROTOCOL } from '@s2sp/core';
import { encodeRows, type TakenRows } from '@s2sp/core/store';
import { describe, expect, it } from 'vitest';
import { negotiateFormat, type RenderedBody, renderDataPlaneBody } from './response-body.js';

const NDJSON_MEDIA_TYPE = PROTOCOL.ndjsonMediaType;

const rows = [
  '{"_row_id":0,"event":"Wind","description":"gusts, strong"}',
  '{"_row_id":1,"event":"Heat"}',
  '{"_row_id":2,"event":"Flood","description":"rain ß"}',
];

async function text(body: RenderedBody): Promise<string> {
  const decoder = new TextDecoder();
  let out = '';
  for await (const chunk of body.chunks as AsyncIterable<Uint8Array>)
    out += decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}

/** The table as a store streams it: pieces cut anywhere, offered one at a time. */
function streamed(cut: number): TakenRows {
  const { joined, ends } = encodeRows(rows);
  async function* pieces() {
    for (let at = 0; at < joined.byteLength; at += cut) yield joined.slice(at, at + cut);
  }
  return {
    columns: ['event', 'description'],
    tableRows: 3,
    chunks: pieces(),
    byteLength: joined.byteLength,
    ends,
  };
}

describe('negotiateFormat', () => {
  it.each([
    [undefined, 'json'],
    ['application/json', 'json'],
    ['*/*', 'json'],
    ['application/x-ndjson', 'ndjson'],
    ['application/json;q=0.5, Application/X-NDJSON', 'ndjson'],
    ['application/x-ndjson;q=0', 'json'],
  ])('%j → %s', (accept, format) => {
    expect(negotiateFormat(accept)).toBe(format);
  });
});

describe('renderDataPlaneBody', () => {
  it('streams a whole table between the JSON envelope, with its length known up front', async () => {
    for (const cut of [1, 7, 1000]) {
      const body = await renderDataPlaneBody(streamed(cut), {}, undefined, 'json');
      const out = await text(body);
      expect(new TextEncoder().encode(out).byteLength).toBe(body.byteLength);
      expect(JSON.parse(out)).toEqual({
        body: rows.map((r) => JSON.parse(r)),
        total_rows: 3,
        columns_returned: ['_row_id', 'event', 'description'],
      });
    }
  });

  it('turns a whole streamed table into NDJSON in place, whatever the cuts', async () => {
    for (const cut of [1, 5, 64, 1000]) {
      const body = await renderDataPlaneBody(streamed(cut), {}, undefined, 'ndjson');
      expect(body.contentType).toBe(NDJSON_MEDIA_TYPE);
      expect(body.totalRows).toBe(3);
      const out = await text(body);
      expect(out).toBe(`${rows.join('\n')}\n`);
      expect(new TextEncoder().encode(out).byteLength).toBe(body.byteLength);
    }
  });

  it('turns joined rows with offsets (the memory store) into NDJSON', async () => {
    const { joined, ends } = encodeRows(rows);
    const body = await renderDataPlaneBody(
      { columns: [], tableRows: 3, joined, ends },
      {},
      undefined,
      'ndjson',
    );
    expect(await text(body)).toBe(`${rows.join('\n')}\n`);
  });

  it('writes selected rows, a projection, or rows without offsets one per line', async () => {
    const some = await renderDataPlaneBody(
      { columns: ['event', 'description'], tableRows: 3, rows: [rows[2], undefined] },
      { row_ids: [2, 9] },
      [2, 9],
      'ndjson',
    );
    expect(some.totalRows).toBe(1);
    expect(await text(some)).toBe(`${rows[2]}\n`);
    const projected = await renderDataPlaneBody(
      streamed(4),
      { columns: ['event'] },
      undefined,
      'ndjson',
    );
    expect(
      (await text(projected))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { _row_id: 0, event: 'Wind' },
      { _row_id: 1, event: 'Heat' },
      { _row_id: 2, event: 'Flood' },
    ]);
    const joined = new TextEncoder().encode(rows.join(','));
    const noOffsets = await renderDataPlaneBody(
      { columns: [], tableRows: 3, joined },
      {},
      undefined,
      'ndjson',
    );
    expect(await text(noOffsets)).toBe(`${rows.join('\n')}\n`);
  });

  it('sends an empty table as an empty NDJSON body', async () => {
    const body = await renderDataPlaneBody(
      { columns: [], tableRows: 0, joined: new Uint8Array(0), ends: new Uint32Array(0) },
      {},
      undefined,
      'ndjson',
    );
    expect(body.byteLength).toBe(0);
    expect(await text(body)).toBe('');
  });
});
