/**
 * The data plane's response body in either format: JSON (PROTOCOL §3, the default) or NDJSON
 * (the §7 extension of 0.2.0: `Accept: application/x-ndjson`, one row per line). Whole tables a
 * store hands over as an async iterable of chunks stream through without being gathered, so a
 * redemption's memory stays bounded whatever the table's size.
 *
 * @module
 */

import { type DataPlaneRequest, PROTOCOL, type Row } from '@s2sp/core';
import { concatBytes, projectRow, type TakenRows } from '@s2sp/core/store';

const ROW_ID = PROTOCOL.rowId;

const encoder = new TextEncoder();
const COMMA_BYTES = encoder.encode(',');

function toBytes(row: string | Uint8Array): Uint8Array {
  return typeof row === 'string' ? encoder.encode(row) : row;
}

/**
 * Renders the 200 body of a redemption (PROTOCOL §3) from what the store returned, as UTF-8
 * chunks to write in order. Without `columns` the cached rows are used as they are — a store's
 * `joined` bytes go out without being copied, strings are encoded once — so a large fetch costs
 * no parsing or re-serialising. With `columns`, only the returned rows are parsed.
 *
 * @param taken - the store's answer for the ids from {@link requestedRowIds}
 * @param request - the parsed request
 * @param rowIds - the ids passed to the store (`undefined` for all rows)
 * @returns the response body as chunks (their concatenation is the JSON text)
 */
export function renderDataPlaneResponse(
  taken: TakenRows,
  request: DataPlaneRequest,
  rowIds: readonly number[] | undefined,
): Uint8Array[] {
  const missing: number[] = [];
  const projecting =
    request.columns !== null && request.columns !== undefined && request.columns.length > 0;
  let body: Uint8Array[];
  let returned: number;
  let columnsReturned: string[];

  if (taken.chunks && !Array.isArray(taken.chunks) && !taken.rows)
    throw new TypeError('renderDataPlaneResponse needs a table in memory: use renderDataPlaneBody');
  const joined =
    taken.joined ??
    (taken.chunks && !taken.rows ? (taken.chunks as readonly Uint8Array[]) : undefined);
  if (!projecting && joined && !rowIds) {
    body = (joined instanceof Uint8Array ? [joined] : [...joined]).filter((c) => c.byteLength > 0);
    returned = taken.tableRows;
    columnsReturned = [...taken.columns];
  } else {
    // A store may hand all rows over only `joined`: split it the JSON way, as one array.
    const slots: ReadonlyArray<string | Uint8Array | undefined> =
      taken.rows ??
      (joined
        ? (
            JSON.parse(
              `[${new TextDecoder().decode(joined instanceof Uint8Array ? joined : concatBytes(joined))}]`,
            ) as unknown[]
          ).map((row) => JSON.stringify(row))
        : []);
    const present: (string | Uint8Array)[] = [];
    slots.forEach((row, i) => {
      if (row !== undefined) present.push(row);
      else if (rowIds) missing.push(rowIds[i] as number);
    });
    returned = present.length;
    if (projecting) {
      const available = new Set(taken.columns);
      columnsReturned = [...new Set(request.columns)].filter(
        (c) => c !== ROW_ID && available.has(c),
      );
      const decoder = new TextDecoder();
      body = [
        encoder.encode(
          present
            .map((row) => {
              const parsed = JSON.parse(
                typeof row === 'string' ? row : decoder.decode(row),
              ) as Row & { _row_id: number };
              return JSON.stringify(projectRow(parsed, parsed._row_id, columnsReturned));
            })
            .join(','),
        ),
      ];
    } else {
      columnsReturned = [...taken.columns];
      const parts: Uint8Array[] = [];
      present.forEach((row, i) => {
        if (i > 0) parts.push(COMMA_BYTES);
        parts.push(toBytes(row));
      });
      // Many small rows are cheaper to write as one buffer.
      body = parts.length > 0 ? [concatBytes(parts)] : [];
    }
  }
  columnsReturned.unshift(ROW_ID);
  const tail = missing.length > 0 ? `,"missing_row_ids":${JSON.stringify(missing)}` : '';
  return [
    encoder.encode('{"body":['),
    ...body,
    encoder.encode(
      `],"total_rows":${returned},"columns_returned":${JSON.stringify(columnsReturned)}${tail}}`,
    ),
  ];
}

const NDJSON_MEDIA_TYPE = PROTOCOL.ndjsonMediaType;

/** A data-plane response format. */
export type ResponseFormat = 'json' | 'ndjson';

/**
 * The format a request asks for: NDJSON when its `Accept` header names
 * `application/x-ndjson` (without `q=0`), else JSON — the default every peer understands.
 */
export function negotiateFormat(accept: string | null | undefined): ResponseFormat {
  if (!accept) return 'json';
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (type !== NDJSON_MEDIA_TYPE) continue;
    const q = params.find((p) => p.startsWith('q='));
    if (!q || Number(q.slice(2)) > 0) return 'ndjson';
  }
  return 'json';
}

/** A rendered response body. */
export interface RenderedBody {
  readonly contentType: string;
  /** NDJSON: the rows in the body (a JSON body says so itself, in `total_rows`). */
  readonly totalRows?: number;
  /** Length in bytes, when known before the body is produced. */
  readonly byteLength?: number;
  /** The body, in order: in memory, or produced on demand. */
  readonly chunks: readonly Uint8Array[] | AsyncIterable<Uint8Array>;
}

const NEWLINE = 10;
const COMMA = 44;

function isIterable(chunks: TakenRows['chunks']): chunks is AsyncIterable<Uint8Array> {
  return chunks !== undefined && !Array.isArray(chunks);
}

/**
 * Replaces the commas between rows by newlines, in place, as the pieces go by, and ends the last
 * row with a newline: the joined rows become NDJSON without a copy.
 */
async function* toLines(
  pieces: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  ends: Uint32Array,
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let row = 0;
  for await (const piece of pieces) {
    const stop = offset + piece.byteLength;
    while (row < ends.length && (ends[row] as number) < stop) {
      const at = (ends[row] as number) - offset;
      if (piece[at] !== COMMA) throw new Error('the row offsets do not match the rows');
      piece[at] = NEWLINE;
      row++;
    }
    offset = stop;
    if (piece.byteLength > 0) yield piece;
  }
  if (ends.length > 0) yield Uint8Array.of(NEWLINE);
}

async function* withEnvelope(
  head: Uint8Array,
  pieces: AsyncIterable<Uint8Array>,
  tail: Uint8Array,
): AsyncGenerator<Uint8Array> {
  yield head;
  yield* pieces;
  yield tail;
}

/**
 * Renders a redemption's body (see {@link renderDataPlaneResponse} for what goes in it).
 *
 * - JSON: the PROTOCOL §3 object. A whole table the store streamed is sent piece by piece
 *   between the envelope's two ends.
 * - NDJSON: each returned row on its own line (`_row_id` first, as in JSON), in table order, and
 *   nothing else; the row count goes in the {@link TOTAL_ROWS_HEADER} header. Missing ids are
 *   those the consumer asked for and did not get. A whole table with row offsets (`ends`) is
 *   turned into lines in place, piece by piece.
 *
 * The taker owns the store's bytes: they may be changed in place.
 *
 * @param taken - the store's answer for `rowIds`
 * @param request - the parsed request
 * @param rowIds - the ids passed to the store (`undefined` for all rows)
 * @param format - from {@link negotiateFormat}
 */
export async function renderDataPlaneBody(
  taken: TakenRows,
  request: DataPlaneRequest,
  rowIds: readonly number[] | undefined,
  format: ResponseFormat,
): Promise<RenderedBody> {
  const projecting = (request.columns?.length ?? 0) > 0;
  const whole =
    !rowIds && !taken.rows && (taken.joined !== undefined || taken.chunks !== undefined);
  if (format === 'json') {
    if (whole && !projecting && isIterable(taken.chunks)) {
      const head = encoder.encode('{"body":[');
      const tail = encoder.encode(
        `],"total_rows":${taken.tableRows},"columns_returned":${JSON.stringify([ROW_ID, ...taken.columns])}}`,
      );
      return {
        contentType: 'application/json',
        ...(taken.byteLength !== undefined && {
          byteLength: head.byteLength + taken.byteLength + tail.byteLength,
        }),
        chunks: withEnvelope(head, taken.chunks, tail),
      };
    }
    const chunks = renderDataPlaneResponse(await inMemory(taken), request, rowIds);
    let byteLength = 0;
    for (const chunk of chunks) byteLength += chunk.byteLength;
    return { contentType: 'application/json', byteLength, chunks };
  }

  const ndjson = { contentType: NDJSON_MEDIA_TYPE };
  if (whole && !projecting && taken.ends) {
    const pieces = taken.joined ? [taken.joined] : (taken.chunks as Iterable<Uint8Array>);
    const length = taken.byteLength ?? taken.joined?.byteLength;
    return {
      ...ndjson,
      totalRows: taken.tableRows,
      ...(length !== undefined && { byteLength: length + (taken.tableRows > 0 ? 1 : 0) }),
      chunks: toLines(pieces, taken.ends),
    };
  }
  // Selected rows, a projection, or a store without row offsets: through the JSON rendering, then
  // one line per row. Only these rows are held in memory.
  const json = JSON.parse(
    new TextDecoder().decode(
      concatBytes(renderDataPlaneResponse(await inMemory(taken), request, rowIds)),
    ),
  ) as { body: Record<string, unknown>[] };
  const lines = json.body.map((row) => JSON.stringify(row));
  const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
  const bytes = encoder.encode(text);
  return { ...ndjson, totalRows: lines.length, byteLength: bytes.byteLength, chunks: [bytes] };
}

/** A take whose whole-table chunks are an iterable, gathered (for projections and fallbacks). */
async function inMemory(taken: TakenRows): Promise<TakenRows> {
  if (!isIterable(taken.chunks)) return taken;
  const pieces: Uint8Array[] = [];
  for await (const piece of taken.chunks) pieces.push(piece);
  const { chunks: _streamed, ...rest } = taken;
  return { ...rest, chunks: pieces };
}
