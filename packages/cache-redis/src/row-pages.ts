/**
 * How a table's rows are laid out in its Redis hash: in pages of consecutive rows, one page per
 * hash field (`"0"`, `"1"`, …), the rows of a page joined with `"\n"`.
 *
 * One field per row would make Redis allocate, and at take time free, three blocks per row: for a
 * 100 000-row table that is milliseconds of allocator work on every take and megabytes of
 * per-field overhead. Pages of about 8 KiB keep both small, while a selective take still reads
 * only the pages that hold the rows it asked for (about 8 KiB per requested row at most, never
 * the whole table). Compact JSON never contains a raw newline, so `"\n"` is a safe separator; a
 * table with a row that does contain one (not produced by S2SP) gets one row per page.
 *
 * @module
 */

/** A page holds about this many JSON characters of rows. */
export const PAGE_CHARS = 8 * 1024;
/** A page never holds more rows than this. */
export const MAX_PAGE_ROWS = 64;
/** Pages per write chunk (one Lua script call): small enough not to block Redis for long. */
export const CHUNK_PAGES = 500;
/** JSON characters per write chunk. */
export const CHUNK_CHARS = 1024 * 1024;

/** Consecutive pages written by one script call. */
export interface PageChunk {
  /** Index of the first page. */
  readonly start: number;
  readonly pages: readonly string[];
}

/**
 * The number of rows per page for a table: about {@link PAGE_CHARS} of rows, from 1 to
 * {@link MAX_PAGE_ROWS}; 1 when a row contains a newline.
 *
 * @param rows - the serialised rows
 * @param rowChars - their total length
 */
export function rowsPerPage(rows: readonly string[], rowChars: number): number {
  if (rows.length === 0) return 1;
  for (const row of rows) if (row.includes('\n')) return 1;
  const average = Math.max(1, rowChars / rows.length);
  return Math.max(1, Math.min(MAX_PAGE_ROWS, Math.floor(PAGE_CHARS / average)));
}

/**
 * Groups rows into pages of `perPage`, and pages into chunks of at most {@link CHUNK_PAGES}
 * pages and about {@link CHUNK_CHARS} characters (at least one page each). An empty table is one
 * empty chunk, so that its metadata still gets written.
 */
export function chunkPages(rows: readonly string[], perPage: number): PageChunk[] {
  const chunks: PageChunk[] = [];
  let pages: string[] = [];
  let chars = 0;
  let start = 0;
  for (let first = 0; first < rows.length; first += perPage) {
    const page = rows.slice(first, first + perPage).join('\n');
    if (pages.length > 0 && (pages.length >= CHUNK_PAGES || chars + page.length > CHUNK_CHARS)) {
      chunks.push({ start, pages });
      start += pages.length;
      pages = [];
      chars = 0;
    }
    pages.push(page);
    chars += page.length;
  }
  chunks.push({ start, pages });
  return chunks;
}

/** The rows of one page. */
export function splitPage(page: string, perPage: number): string[] {
  return perPage === 1 ? [page] : page.split('\n');
}
