import { z } from 'zod';
import type { TakenRows } from './body-store.js';
import { S2SPError } from './errors.js';
import { describeType, isPlainObject, parseJsonText, type Row } from './json.js';
import { RowWithIdSchema } from './resource-result.js';
import { projectRow, ROW_ID } from './table.js';

/** Path prefix of the data plane; a token follows it (PROTOCOL §3). */
export const DATA_PATH_PREFIX = '/s2sp/data/';

/** Path of the data plane's health check. */
export const HEALTH_PATH = '/s2sp/health';

/** Default maximum size of a data-plane request body: 1 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * Most distinct `row_ids` a data plane takes in one request by default (PROTOCOL §3 limits).
 * Consumers that need more rows request the whole table (`{}`) and select locally, so a large
 * hand-off works against any data plane that keeps the default.
 */
export const MAX_REQUEST_ROW_IDS = 10_000;

/**
 * The data-plane request body (PROTOCOL §3). Both members are optional; `null` counts as absent
 * and unknown members are ignored, so requests from other implementations are understood.
 */
export const DataPlaneRequestSchema = z.object({
  row_ids: z
    .array(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), {
      error: 'row_ids must be an array of non-negative integers such as [0, 2, 5]',
    })
    .nullish(),
  columns: z
    .array(z.string(), {
      error: 'columns must be an array of column names such as ["description"]',
    })
    .nullish(),
});

/** A parsed data-plane request. */
export type DataPlaneRequest = z.infer<typeof DataPlaneRequestSchema>;

/**
 * The data plane's 200 body. `columns_returned` and `missing_row_ids` are optional when read,
 * because the Python reference does not send them.
 */
export const DataPlaneResponseSchema = z.looseObject({
  body: z.array(RowWithIdSchema),
  total_rows: z.number().int().nonnegative().optional(),
  columns_returned: z.array(z.string()).optional(),
  missing_row_ids: z.array(z.number().int().nonnegative()).optional(),
});

/** A data-plane response body. */
export type DataPlaneResponse = z.infer<typeof DataPlaneResponseSchema>;

/** Formats zod issues as `row_ids[2]: message; columns: message`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('');
      return `${path.replace(/^\./, '') || 'body'}: ${issue.message}`;
    })
    .join('; ');
}

const JSON_WHITESPACE = /^[ \t\n\r]*$/;

/** True when `text` is empty or only JSON whitespace (space, tab, LF, CR; RFC 8259 §2). */
export function isJsonWhitespace(text: string): boolean {
  return JSON_WHITESPACE.test(text);
}

/**
 * True for `application/json`, optionally with `charset=utf-8` (any case, quoted or not), and
 * nothing else (PROTOCOL §3): not `text/plain`, not `application/x+json`, no other charset and no
 * other parameter.
 *
 * @param contentType - the `Content-Type` header, if any
 */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const [type, ...parameters] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const trimmed = parameter.trim();
    if (trimmed === '') return true;
    const match = /^charset\s*=\s*("?)utf-8\1$/i.exec(trimmed);
    return match !== null;
  });
}

/**
 * Parses a data-plane request body from its text. An empty body (or JSON whitespace only) counts
 * as `{}`.
 *
 * @param text - the raw request body
 * @throws S2SPError `invalid_request` for bad JSON, a non-object, or wrong member types
 */
export function parseDataPlaneRequest(text: string): DataPlaneRequest {
  // JSON's own whitespace only: `trim()` also strips U+00A0, U+2028, U+FEFF…, which JSON does not
  // allow, and a body of those must be a 400 that keeps the token, not an empty `{}` that uses it.
  if (isJsonWhitespace(text)) return {};
  const json = parseJsonText(
    text,
    () =>
      new S2SPError(
        'invalid_request',
        'The request body is not valid JSON. Send {"row_ids": [0, 2], "columns": ["description"]} (both optional) or {}.',
      ),
  );
  if (!isPlainObject(json)) {
    throw new S2SPError(
      'invalid_request',
      `The request body is ${describeType(json)}; it must be a JSON object such as {"row_ids": [0, 2]} or {}.`,
    );
  }
  const parsed = DataPlaneRequestSchema.safeParse(json);
  if (!parsed.success) {
    throw new S2SPError(
      'invalid_request',
      `Invalid data-plane request: ${formatIssues(parsed.error)}.`,
    );
  }
  return parsed.data;
}

/**
 * The row ids to ask the store for: `undefined` (all rows) when none were requested, otherwise
 * deduplicated and in ascending (table) order.
 */
export function requestedRowIds(request: DataPlaneRequest): number[] | undefined {
  const ids = request.row_ids;
  if (!ids || ids.length === 0) return undefined;
  return [...new Set(ids)].sort((a, b) => a - b);
}

const encoder = new TextEncoder();
const COMMA = encoder.encode(',');

function toBytes(row: string | Uint8Array): Uint8Array {
  return typeof row === 'string' ? encoder.encode(row) : row;
}

/** Joins byte chunks into one buffer. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  let size = 0;
  for (const chunk of chunks) size += chunk.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
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
        if (i > 0) parts.push(COMMA);
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
