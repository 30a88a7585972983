/**
 * The data plane's response body in either format: JSON (PROTOCOL §3, the default) or NDJSON
 * (the §7 extension of 0.2.0: `Accept: application/x-ndjson`, one row per line). The rows a
 * store hands over stream through without being gathered (see {@link TakenRows}), so a
 * redemption's memory stays bounded whatever the table's size; only a projection parses them.
 *
 * @module
 */

import { type DataPlaneRequest, PROTOCOL, type Row } from '@s2sp/core';
import { chunksOf, heldPieces, type TakenRows, takenRowBytes } from '@s2sp/core/store';
import { projectRow } from '../resource/table.js';

const ROW_ID = PROTOCOL.rowId;

const encoder = new TextEncoder();

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
  /** Length in bytes, known before the body is produced. */
  readonly byteLength: number;
  /** The body, in order, produced as it is read; read it once. */
  readonly chunks: AsyncIterable<Uint8Array>;
}

const NEWLINE = 10;
const COMMA = 44;

/**
 * Replaces the commas that end rows inside `piece` (which starts at `offset` of the joined rows)
 * by newlines, in place; returns the first row not ended yet.
 */
function endLines(piece: Uint8Array, offset: number, ends: Uint32Array, row: number): number {
  const stop = offset + piece.byteLength;
  let next = row;
  while (next < ends.length && (ends[next] as number) < stop) {
    const at = (ends[next] as number) - offset;
    if (piece[at] !== COMMA) throw new Error('the row offsets do not match the rows');
    piece[at] = NEWLINE;
    next++;
  }
  return next;
}

/**
 * Replaces the commas between rows by newlines, in place, as the pieces go by, and ends the last
 * row with a newline: the joined rows become NDJSON without a copy.
 */
async function* toLines(
  pieces: AsyncIterable<Uint8Array>,
  ends: Uint32Array,
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let row = 0;
  for await (const piece of pieces) {
    row = endLines(piece, offset, ends, row);
    offset += piece.byteLength;
    if (piece.byteLength > 0) yield piece;
  }
  if (ends.length > 0) yield Uint8Array.of(NEWLINE);
}

/** {@link toLines} for pieces all at hand, at once. */
function heldLines(pieces: readonly Uint8Array[], ends: Uint32Array): Uint8Array[] {
  let offset = 0;
  let row = 0;
  for (const piece of pieces) {
    row = endLines(piece, offset, ends, row);
    offset += piece.byteLength;
  }
  return ends.length > 0 ? [...pieces, Uint8Array.of(NEWLINE)] : [...pieces];
}

/** The envelope's two ends around the pieces; held pieces stay held (see `heldPieces`). */
function withEnvelope(
  head: Uint8Array,
  pieces: AsyncIterable<Uint8Array>,
  tail: Uint8Array,
): AsyncIterable<Uint8Array> {
  const held = heldPieces(pieces);
  if (held) return chunksOf([head, ...held, tail]);
  return (async function* () {
    yield head;
    yield* pieces;
    yield tail;
  })();
}

/**
 * The columns a request projects to (without `_row_id`): those it names that the table has, each
 * once, in the order named. `undefined` when it names none, which means every column.
 */
function projectedColumns(taken: TakenRows, request: DataPlaneRequest): string[] | undefined {
  if (!request.columns || request.columns.length === 0) return undefined;
  const available = new Set(taken.columns);
  return [...new Set(request.columns)].filter((c) => c !== ROW_ID && available.has(c));
}

/** Each returned row cut to `columns`, as compact JSON: the only path that parses rows. */
async function projectedRows(taken: TakenRows, columns: readonly string[]): Promise<string[]> {
  const decoder = new TextDecoder();
  const out: string[] = [];
  for await (const row of takenRowBytes(taken)) {
    const parsed = JSON.parse(decoder.decode(row)) as Row & { _row_id: number };
    out.push(JSON.stringify(projectRow(parsed, parsed._row_id, columns)));
  }
  return out;
}

/**
 * Renders a redemption's 200 body from what the store returned.
 *
 * - JSON: the PROTOCOL §3 object. Without `columns` the store's bytes go out as they are, piece
 *   by piece between the envelope's two ends, so a large fetch costs no parsing or
 *   re-serialising; with `columns`, the returned rows are parsed and projected.
 * - NDJSON: each returned row on its own line (`_row_id` first, as in JSON), in table order, and
 *   nothing else; the row count goes in the `S2SP-Total-Rows` header. Missing ids are not sent: they
 *   are those the consumer asked for and did not get. Without `columns` the commas between rows become
 *   newlines in place, piece by piece (the taker owns the store's bytes).
 *
 * @param taken - the store's answer for the ids from `requestedRowIds`
 * @param request - the parsed request
 * @param format - from {@link negotiateFormat}
 */
export async function renderDataPlaneBody(
  taken: TakenRows,
  request: DataPlaneRequest,
  format: ResponseFormat,
): Promise<RenderedBody> {
  const projection = projectedColumns(taken, request);
  const rows = taken.ends.length;
  if (format === 'json') {
    const columnsReturned = [ROW_ID, ...(projection ?? taken.columns)];
    const missing =
      taken.missing.length > 0 ? `,"missing_row_ids":${JSON.stringify(taken.missing)}` : '';
    const head = encoder.encode('{"body":[');
    const tail = encoder.encode(
      `],"total_rows":${rows},"columns_returned":${JSON.stringify(columnsReturned)}${missing}}`,
    );
    const envelope = head.byteLength + tail.byteLength;
    if (!projection) {
      return {
        contentType: 'application/json',
        byteLength: envelope + taken.byteLength,
        chunks: withEnvelope(head, taken.chunks, tail),
      };
    }
    const body = encoder.encode((await projectedRows(taken, projection)).join(','));
    return {
      contentType: 'application/json',
      byteLength: envelope + body.byteLength,
      chunks: chunksOf([head, body, tail]),
    };
  }

  const ndjson = { contentType: NDJSON_MEDIA_TYPE, totalRows: rows };
  if (!projection) {
    const held = heldPieces(taken.chunks);
    return {
      ...ndjson,
      byteLength: taken.byteLength + (rows > 0 ? 1 : 0),
      // Pieces at hand stay at hand (see `heldPieces`), for a writer that sends them at once.
      chunks: held ? chunksOf(heldLines(held, taken.ends)) : toLines(taken.chunks, taken.ends),
    };
  }
  const lines = await projectedRows(taken, projection);
  const bytes = encoder.encode(lines.length > 0 ? `${lines.join('\n')}\n` : '');
  return { ...ndjson, byteLength: bytes.byteLength, chunks: chunksOf([bytes]) };
}
