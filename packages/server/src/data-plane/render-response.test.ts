import { DataPlaneResponseSchema } from '@s2sp/core';
import type { TakenRows } from '@s2sp/core/store';
import { concatBytes } from '@s2sp/core/store';
import { describe, expect, it } from 'vitest';
import { renderDataPlaneResponse as renderChunks } from './response-body.js';

const renderDataPlaneResponse = (...args: Parameters<typeof renderChunks>) =>
  new TextDecoder().decode(concatBytes(renderChunks(...args)));

describe('renderDataPlaneResponse', () => {
  const rows = [
    '{"_row_id":0,"event":"Wind","description":"gusts"}',
    '{"_row_id":1,"event":"Heat"}',
    '{"_row_id":2,"event":"Flood","description":"rain"}',
  ];
  const all: TakenRows = { columns: ['event', 'description'], tableRows: 3, rows };

  it('returns all rows and all columns when nothing is selected', () => {
    const text = renderDataPlaneResponse(all, {}, undefined);
    expect(JSON.parse(text)).toEqual({
      body: rows.map((r) => JSON.parse(r)),
      total_rows: 3,
      columns_returned: ['_row_id', 'event', 'description'],
    });
  });

  it('lists ids the table lacks in missing_row_ids and counts only returned rows', () => {
    const ids = [1, 7, 9];
    const taken: TakenRows = { ...all, rows: [rows[1], undefined, undefined] };
    const response = DataPlaneResponseSchema.parse(
      JSON.parse(renderDataPlaneResponse(taken, { row_ids: ids }, ids)),
    );
    expect(response.body).toEqual([{ _row_id: 1, event: 'Heat' }]);
    expect(response.total_rows).toBe(1);
    expect(response.missing_row_ids).toEqual([7, 9]);
  });

  it('projects requested columns, always keeps _row_id and skips unknown names', () => {
    const text = renderDataPlaneResponse(
      all,
      { columns: ['description', 'nope', 'description', '_row_id'] },
      undefined,
    );
    expect(JSON.parse(text)).toEqual({
      body: [
        { _row_id: 0, description: 'gusts' },
        { _row_id: 1 },
        { _row_id: 2, description: 'rain' },
      ],
      total_rows: 3,
      columns_returned: ['_row_id', 'description'],
    });
  });

  it("sends a store's joined bytes as they are, without copying them", () => {
    const joined = new TextEncoder().encode(rows.join(','));
    const chunks = renderChunks(
      { columns: ['event', 'description'], tableRows: 3, joined },
      {},
      undefined,
    );
    expect(chunks).toHaveLength(3);
    expect(chunks[1]).toBe(joined);
    expect(JSON.parse(new TextDecoder().decode(concatBytes(chunks)))).toEqual({
      body: rows.map((r) => JSON.parse(r)),
      total_rows: 3,
      columns_returned: ['_row_id', 'event', 'description'],
    });
  });

  it("sends a store's chunks as they are, split anywhere, even inside a character", () => {
    const joined = new TextEncoder().encode(`${rows.join(',')},{"_row_id":3,"event":"ß"}`);
    const pieces = [
      joined.subarray(0, 7),
      joined.subarray(7, joined.length - 3),
      new Uint8Array(0),
      joined.subarray(joined.length - 3),
    ];
    const chunks = renderChunks(
      { columns: ['event', 'description'], tableRows: 4, chunks: pieces },
      {},
      undefined,
    );
    expect(chunks).toHaveLength(5);
    expect(chunks[1]).toBe(pieces[0]);
    const parsed = JSON.parse(new TextDecoder().decode(concatBytes(chunks)));
    expect(parsed.total_rows).toBe(4);
    expect(parsed.body[3]).toEqual({ _row_id: 3, event: 'ß' });
    // With columns, the chunks are parsed as one array.
    const projected = JSON.parse(
      renderDataPlaneResponse(
        { columns: ['event', 'description'], tableRows: 4, chunks: pieces },
        { columns: ['event'] },
        undefined,
      ),
    );
    expect(projected.body.map((r: { event: string }) => r.event)).toEqual([
      'Wind',
      'Heat',
      'Flood',
      'ß',
    ]);
  });

  it('projects columns of all rows when the store gave them only joined', () => {
    const joined = new TextEncoder().encode(rows.join(','));
    const text = renderDataPlaneResponse(
      { columns: ['event', 'description'], tableRows: 3, joined },
      { columns: ['event'] },
      undefined,
    );
    expect(JSON.parse(text)).toEqual({
      body: [
        { _row_id: 0, event: 'Wind' },
        { _row_id: 1, event: 'Heat' },
        { _row_id: 2, event: 'Flood' },
      ],
      total_rows: 3,
      columns_returned: ['_row_id', 'event'],
    });
  });

  it('accepts rows as UTF-8 bytes, and projects them too', () => {
    const bytes = rows.map((r) => new TextEncoder().encode(r));
    const taken: TakenRows = {
      columns: ['event', 'description'],
      tableRows: 3,
      rows: [bytes[2], undefined],
    };
    expect(JSON.parse(renderDataPlaneResponse(taken, { row_ids: [2, 5] }, [2, 5]))).toMatchObject({
      body: [{ _row_id: 2, event: 'Flood', description: 'rain' }],
      missing_row_ids: [5],
    });
    expect(
      JSON.parse(renderDataPlaneResponse(taken, { row_ids: [2, 5], columns: ['event'] }, [2, 5]))
        .body,
    ).toEqual([{ _row_id: 2, event: 'Flood' }]);
  });

  it('renders an empty table', () => {
    expect(
      JSON.parse(renderDataPlaneResponse({ columns: [], tableRows: 0, rows: [] }, {}, undefined)),
    ).toEqual({ body: [], total_rows: 0, columns_returned: ['_row_id'] });
  });

  it('reads a Python reference response, which has no columns_returned', () => {
    expect(
      DataPlaneResponseSchema.parse({ body: [{ a: 1, _row_id: 0 }], total_rows: 1 }).body,
    ).toHaveLength(1);
    expect(DataPlaneResponseSchema.safeParse({ body: [{ a: 1 }] }).success).toBe(false);
  });
});
