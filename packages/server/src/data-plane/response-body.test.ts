import { DataPlaneResponseSchema, PROTOCOL } from '@s2sp/core';
import { chunksOf, encodeRows, selectRows, type TakenRows } from '@s2sp/core/store';
import { describe, expect, it } from 'vitest';
import { negotiateFormat, type RenderedBody, renderDataPlaneBody } from './response-body.js';

const NDJSON_MEDIA_TYPE = PROTOCOL.ndjsonMediaType;

const rows = [
  '{"_row_id":0,"event":"Wind","description":"gusts, strong"}',
  '{"_row_id":1,"event":"Heat"}',
  '{"_row_id":2,"event":"Flood","description":"rain ß"}',
];
const columns = ['event', 'description'];

/** A body's text, checking that it is as long as it said up front. */
async function text(body: RenderedBody): Promise<string> {
  const decoder = new TextDecoder();
  let out = '';
  let length = 0;
  for await (const chunk of body.chunks) {
    length += chunk.byteLength;
    out += decoder.decode(chunk, { stream: true });
  }
  expect(length).toBe(body.byteLength);
  return out + decoder.decode();
}

/** What the memory store answers for `rowIds` (all rows without). */
function taken(rowIds?: number[], table: readonly string[] = rows): TakenRows {
  return selectRows({ columns, ...encodeRows(table) }, rowIds);
}

/** The table as a store streams it: pieces cut anywhere, offered one at a time. */
function streamed(cut: number): TakenRows {
  const { joined, ends } = encodeRows(rows);
  async function* pieces() {
    for (let at = 0; at < joined.byteLength; at += cut) yield joined.slice(at, at + cut);
  }
  return {
    columns,
    tableRows: 3,
    missing: [],
    byteLength: joined.byteLength,
    ends,
    chunks: pieces(),
  };
}

const json = async (answer: TakenRows, request: Parameters<typeof renderDataPlaneBody>[1]) =>
  JSON.parse(await text(await renderDataPlaneBody(answer, request, 'json')));

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

describe('renderDataPlaneBody as JSON', () => {
  it('returns all rows and all columns when nothing is selected', async () => {
    expect(await json(taken(), {})).toEqual({
      body: rows.map((r) => JSON.parse(r)),
      total_rows: 3,
      columns_returned: ['_row_id', 'event', 'description'],
    });
  });

  it('lists ids the table lacks in missing_row_ids and counts only returned rows', async () => {
    const ids = [1, 7, 9];
    const response = DataPlaneResponseSchema.parse(await json(taken(ids), { row_ids: ids }));
    expect(response.body).toEqual([{ _row_id: 1, event: 'Heat' }]);
    expect(response.total_rows).toBe(1);
    expect(response.missing_row_ids).toEqual([7, 9]);
  });

  it('projects requested columns, always keeps _row_id and skips unknown names', async () => {
    expect(
      await json(taken(), { columns: ['description', 'nope', 'description', '_row_id'] }),
    ).toEqual({
      body: [
        { _row_id: 0, description: 'gusts, strong' },
        { _row_id: 1 },
        { _row_id: 2, description: 'rain ß' },
      ],
      total_rows: 3,
      columns_returned: ['_row_id', 'description'],
    });
  });

  it('projects selected rows and still lists the missing ones', async () => {
    expect(await json(taken([2, 5]), { row_ids: [2, 5], columns: ['event'] })).toEqual({
      body: [{ _row_id: 2, event: 'Flood' }],
      total_rows: 1,
      columns_returned: ['_row_id', 'event'],
      missing_row_ids: [5],
    });
  });

  it("sends a store's bytes as they are, without copying them", async () => {
    const { joined, ends } = encodeRows(rows);
    const body = await renderDataPlaneBody(
      {
        columns,
        tableRows: 3,
        missing: [],
        byteLength: joined.byteLength,
        ends,
        chunks: chunksOf([joined]),
      },
      {},
      'json',
    );
    const chunks: Uint8Array[] = [];
    for await (const chunk of body.chunks) chunks.push(chunk);
    expect(chunks).toHaveLength(3);
    expect(chunks[1]).toBe(joined);
  });

  it("streams a store's pieces between the envelope, cut anywhere, even inside a character", async () => {
    for (const cut of [1, 7, 1000]) {
      expect(await json(streamed(cut), {})).toEqual({
        body: rows.map((r) => JSON.parse(r)),
        total_rows: 3,
        columns_returned: ['_row_id', 'event', 'description'],
      });
      // With columns, the rows are cut at their ends and parsed one by one.
      const projected = await json(streamed(cut), { columns: ['event'] });
      expect(projected.body.map((r: { event: string }) => r.event)).toEqual([
        'Wind',
        'Heat',
        'Flood',
      ]);
    }
  });

  it('renders an empty table', async () => {
    expect(await json(taken(undefined, []), {})).toEqual({
      body: [],
      total_rows: 0,
      columns_returned: ['_row_id', 'event', 'description'],
    });
  });

  it('reads a Python reference response, which has no columns_returned', () => {
    expect(
      DataPlaneResponseSchema.parse({ body: [{ a: 1, _row_id: 0 }], total_rows: 1 }).body,
    ).toHaveLength(1);
    expect(DataPlaneResponseSchema.safeParse({ body: [{ a: 1 }] }).success).toBe(false);
  });
});

describe('renderDataPlaneBody as NDJSON', () => {
  it('turns a whole streamed table into NDJSON in place, whatever the cuts', async () => {
    for (const cut of [1, 5, 64, 1000]) {
      const body = await renderDataPlaneBody(streamed(cut), {}, 'ndjson');
      expect(body.contentType).toBe(NDJSON_MEDIA_TYPE);
      expect(body.totalRows).toBe(3);
      expect(await text(body)).toBe(`${rows.join('\n')}\n`);
    }
  });

  it('turns joined rows (the memory store) into NDJSON', async () => {
    expect(await text(await renderDataPlaneBody(taken(), {}, 'ndjson'))).toBe(
      `${rows.join('\n')}\n`,
    );
  });

  it('writes selected rows and a projection one per line', async () => {
    const some = await renderDataPlaneBody(taken([0, 2, 9]), { row_ids: [0, 2, 9] }, 'ndjson');
    expect(some.totalRows).toBe(2);
    expect(await text(some)).toBe(`${rows[0]}\n${rows[2]}\n`);
    const projected = await renderDataPlaneBody(streamed(4), { columns: ['event'] }, 'ndjson');
    expect(projected.totalRows).toBe(3);
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
  });

  it('sends an empty table, or only missing ids, as an empty NDJSON body', async () => {
    for (const answer of [taken(undefined, []), taken([5, 6])]) {
      const body = await renderDataPlaneBody(answer, {}, 'ndjson');
      expect(body.byteLength).toBe(0);
      expect(body.totalRows).toBe(0);
      expect(await text(body)).toBe('');
    }
  });
});
