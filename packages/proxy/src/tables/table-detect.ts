/**
 * Finding the table in an upstream tool result. The one rule (the README states it):
 *
 * 1. **JSON first.** `structuredContent`, then each text block in order, parsed as JSON: the
 *    table is the document when it is an array of objects, else the one non-empty array of
 *    objects (or `{"columns": [...], "rows": [[...]]}` header-plus-arrays object) found in its
 *    objects, up to {@link MAX_DEPTH} levels down; with none non-empty, its one empty array
 *    (0 rows). Several non-empty arrays: the model names one (`table`), else the call is refused
 *    listing them. The first document holding any array of objects decides.
 * 2. **Then the text formats**, each over the text blocks in order: JSON Lines, then an HTML
 *    `<table>`, then a Markdown table, then CSV or TSV (two lines or more, two columns or more).
 * 3. An explicit rule (`--table-tool NAME:POINTER` and/or a `format`) tries only what it names.
 *
 * Every other content block is accounted for: a text block that holds the same table again is a
 * repeat (dropped, counted); other text blocks up to {@link MAX_KEPT_TEXT} characters are kept;
 * the rest are dropped and described (type and size). Other arrays of the table's document are
 * returned beside it, never lost.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import type { RowBytes } from '@s2sp/core/store';
import type { CallToolResult } from '../mcp-sdk.js';
import { LargeText } from '../upstream/large-strings.js';
import { sampledRows } from './column-catalogue.js';
import { parseDelimited } from './formats/csv.js';
import { rowsFromHeader } from './formats/header-rows.js';
import { findHtmlTable } from './formats/html-table.js';
import { arrayElementRanges, arrayElementTexts, rowsKeeping } from './formats/json-rows.js';
import { parseJsonLines } from './formats/jsonl.js';
import { findMarkdownTable } from './formats/markdown.js';
import { parseJsonPointer, pointerTo, resolveJsonPointer } from './json-pointer.js';

/** The formats a table may come in. */
export const TABLE_FORMATS = ['json', 'jsonl', 'csv', 'tsv', 'markdown', 'html'] as const;

/** A format a table may come in (`--table-tool NAME:POINTER:FORMAT`). */
export type TableFormat = (typeof TABLE_FORMATS)[number];

/** An array of objects found in a result, by where it is and how many rows it has. */
export interface TableArray {
  /** JSON Pointer into the document (`""`: the document itself). */
  readonly pointer: string;
  readonly rows: number;
}

/** An array of the table's document that is not the table, kept beside it. */
export interface OtherArray {
  readonly pointer: string;
  readonly rows: readonly Row[];
}

/** A content block, as the proxy describes one it left out. */
export interface BlockSummary {
  /** Index in `content`. */
  readonly index: number;
  readonly type: string;
  /** Characters of its text or data. */
  readonly chars: number;
}

/** What became of the content blocks that are not the table. */
export interface OtherBlocks {
  /** Small text blocks that are not the table, in order: returned after the abstract. */
  readonly kept: readonly CallToolResult['content'][number][];
  /** Text blocks that held the table again. */
  readonly repeats: number;
  /** Blocks left out (large text that is not the table, images, resources …). */
  readonly dropped: readonly BlockSummary[];
}

/** A table found in a result. */
export interface FoundTable {
  readonly kind: 'table';
  readonly rows: readonly Row[];
  /** Where the rows were, as a JSON Pointer into the parsed document (`""`: the document). */
  readonly pointer: string;
  readonly format: TableFormat;
  /** `structuredContent`, or the index of the content block that held the table. */
  readonly source: 'structuredContent' | number;
  /** Every non-empty array of objects of the table's document, the table's own included. */
  readonly arrays: readonly TableArray[];
  /** The non-empty arrays that are not the table. */
  readonly others: readonly OtherArray[];
  readonly blocks: OtherBlocks;
  /**
   * The JSON text of each row, as slices of the upstream's text, when the table is a compact
   * top-level JSON array in a text block (for `attachRowJson`: stored without a copy). Rows read
   * with `keep` hand their texts over once (later calls: `undefined`).
   */
  readonly rowTexts?: () => string[] | undefined;
  /**
   * The rows' JSON as bytes, when the table is a compact top-level JSON array in a text block the
   * upstream's answer kept as bytes ({@link LargeText}) and was read with `keep` (for
   * `attachRowBytes`: stored from those bytes, in place). Handed over once.
   */
  readonly rowBytes?: () => RowBytes | undefined;
}

/** Why a result is not a table, in words an LLM can act on. */
export interface NotATable {
  readonly kind: 'not-table';
  readonly reason: string;
  /** Set when the result has several arrays and none was named: the model picks one. */
  readonly arrays?: readonly TableArray[];
  /** The result's content blocks. */
  readonly blocks: readonly BlockSummary[];
}

/** Options for {@link findTable}. */
export interface FindTableOptions {
  /** Reference tokens of a configured pointer (JSON documents only). */
  readonly pointer?: readonly string[];
  /** A configured format: only it is tried. */
  readonly format?: TableFormat;
  /** The model's choice among several arrays: a member name or a JSON Pointer. */
  readonly table?: string;
  /** Largest text block parsed, in UTF-16 code units. */
  readonly maxTextLength: number;
  /**
   * The only columns whose values are needed (an async split's abstract columns): a compact JSON
   * array in a text block is then read row by row, keeping only their values except in the rows
   * the catalogue samples (see `rowsKeeping`); its `rowTexts` are then always set, and the rows
   * are only good for their columns and for storing through their texts.
   */
  readonly keep?: readonly string[];
}

/** Levels of objects searched for the table below the document. */
export const MAX_DEPTH = 4;
/** Members looked at while searching one document, so a huge object cannot make the walk slow. */
const MAX_VISITED = 10_000;
/** Characters of a text block that is not the table and is still returned with the abstract. */
export const MAX_KEPT_TEXT = 2_000;
/** Cells of a text-format table (CSV, Markdown, HTML). */
const MAX_CELLS = 20_000_000;
const MAX_CELL_CHARS = 1_000_000;

const HEADER_KEYS = ['columns', 'fields', 'headers', 'header'];
const RECORD_KEYS = ['rows', 'data', 'values', 'records'];

function isTable(value: unknown): value is Row[] {
  return Array.isArray(value) && value.every(isPlainObject);
}

type Located =
  | { readonly kind: 'rows'; readonly rows: Row[] }
  | { readonly kind: 'bad'; readonly reason: string };

/** A `{"columns": [...], "rows": [[...]]}` object, as rows of objects; `undefined`: not one. */
function headerTable(value: unknown): Located | undefined {
  if (!isPlainObject(value)) return undefined;
  const headerKey = HEADER_KEYS.find((key) => Array.isArray(value[key]));
  const recordKey = RECORD_KEYS.find(
    (key) =>
      Array.isArray(value[key]) &&
      (value[key] as unknown[]).length > 0 &&
      (value[key] as unknown[]).every(Array.isArray),
  );
  if (!headerKey || !recordKey) return undefined;
  // Columns as names, or as objects with a name (`{"name": "id", "type": "int4"}`).
  const header = (value[headerKey] as unknown[]).map((column) =>
    isPlainObject(column) && typeof column.name === 'string' ? column.name : column,
  );
  const built = rowsFromHeader(header, value[recordKey] as unknown[][], {
    typeNumbers: false,
    firstLine: 0,
    unit: 'row',
  });
  return built.ok ? { kind: 'rows', rows: built.rows } : { kind: 'bad', reason: built.reason };
}

function asTable(value: unknown): Located | undefined {
  if (isTable(value)) return { kind: 'rows', rows: value };
  return headerTable(value);
}

interface Candidate {
  readonly pointer: string;
  readonly located: Located;
}

/** Every array of objects (and header-plus-arrays object) in `document`, breadth first. */
function candidates(document: unknown): Candidate[] {
  const out: Candidate[] = [];
  let visited = 0;
  let level: [string, unknown][] = [['', document]];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: [string, unknown][] = [];
    for (const [pointer, value] of level) {
      const located = asTable(value);
      if (located) {
        out.push({ pointer, located });
        continue;
      }
      if (!isPlainObject(value)) continue;
      for (const key of Object.keys(value)) {
        if (++visited > MAX_VISITED) return out;
        next.push([pointer + pointerTo(key), value[key]]);
      }
    }
    level = next;
  }
  return out;
}

const rowCount = (c: Candidate) => (c.located.kind === 'rows' ? c.located.rows.length : 0);

type InDocument =
  | {
      readonly kind: 'table';
      readonly rows: Row[];
      readonly pointer: string;
      readonly arrays: TableArray[];
      readonly others: OtherArray[];
    }
  | { readonly kind: 'not-table'; readonly reason: string; readonly arrays?: TableArray[] }
  | { readonly kind: 'none' };

function listArrays(arrays: readonly TableArray[]): string {
  const shown = arrays
    .slice(0, 10)
    .map(
      (a) => `${JSON.stringify(a.pointer.slice(0, 64))} (${a.rows.toLocaleString('en-US')} rows)`,
    );
  const more =
    arrays.length > 10 ? ` … and ${(arrays.length - 10).toLocaleString('en-US')} more` : '';
  return shown.join(', ') + more;
}

/** The table of one JSON document, by the rule in the module comment. */
function fromDocument(document: unknown, options: FindTableOptions): InDocument {
  const found = candidates(document);
  const nonEmpty = found.filter((c) => rowCount(c) > 0 || c.located.kind === 'bad');
  const arrays: TableArray[] = nonEmpty.map((c) => ({ pointer: c.pointer, rows: rowCount(c) }));
  const pick = (chosen: Candidate | undefined, pointer: string): InDocument => {
    if (!chosen) {
      const value = resolveJsonPointer(document, parseJsonPointer(pointer));
      const located = asTable(value);
      if (!located) {
        return {
          kind: 'not-table',
          reason: `${JSON.stringify(pointer.slice(0, 64))} does not hold an array of objects`,
          ...(arrays.length > 0 && { arrays }),
        };
      }
      chosen = { pointer, located };
    }
    if (chosen.located.kind === 'bad') {
      return {
        kind: 'not-table',
        reason: `the array at ${JSON.stringify(chosen.pointer)}: ${chosen.located.reason}`,
      };
    }
    const others = nonEmpty
      .filter((c) => c.pointer !== chosen.pointer && c.located.kind === 'rows')
      // An array inside the chosen table's own rows cannot be found (the walk stops at tables),
      // but the table may sit inside another member's object: only disjoint arrays are others.
      .map((c) => ({ pointer: c.pointer, rows: (c.located as { rows: Row[] }).rows }));
    return { kind: 'table', rows: chosen.located.rows, pointer: chosen.pointer, arrays, others };
  };

  if (options.table !== undefined) {
    const name = options.table;
    if (name.startsWith('/') || name === '') {
      return pick(
        found.find((c) => c.pointer === name),
        name,
      );
    }
    const matches = found.filter((c) => c.pointer.split('/').at(-1) === pointerTo(name).slice(1));
    if (matches.length === 1) return pick(matches[0], matches[0]?.pointer ?? '');
    return {
      kind: 'not-table',
      reason:
        matches.length === 0
          ? `the result has no array named ${JSON.stringify(name.slice(0, 64))}`
          : `${matches.length} arrays are named ${JSON.stringify(name.slice(0, 64))}`,
      ...(arrays.length > 0 && { arrays }),
    };
  }
  if (options.pointer) {
    const pointer = options.pointer.map(pointerTo).join('');
    return pick(
      found.find((c) => c.pointer === pointer),
      pointer,
    );
  }
  const whole = found.find((c) => c.pointer === '');
  if (whole) return pick(whole, '');
  const [only] = nonEmpty;
  if (nonEmpty.length === 1 && only) return pick(only, only.pointer);
  if (nonEmpty.length > 1) {
    return {
      kind: 'not-table',
      reason: `the result has ${nonEmpty.length} arrays of objects: ${listArrays(arrays)}`,
      arrays,
    };
  }
  // Zero rows inside a wrapper (`{"data": [], "total": 0}`): an empty table.
  const [empty] = found;
  if (empty) return pick(empty, empty.pointer);
  return { kind: 'none' };
}

interface TextTable {
  readonly rows: Row[];
  readonly format: TableFormat;
}

/** One text block in one non-JSON format: rows, a reason, or `undefined` (not this format). */
function fromText(
  text: string,
  format: Exclude<TableFormat, 'json'>,
  explicit: boolean,
): TextTable | { readonly reason: string } | undefined {
  switch (format) {
    case 'jsonl': {
      const trimmed = text.trimStart();
      if (!explicit && (!trimmed.startsWith('{') || !trimmed.includes('\n'))) return undefined;
      const parsed = parseJsonLines(text, { maxRows: MAX_CELLS });
      return parsed.ok
        ? { rows: parsed.rows, format }
        : { reason: `as JSON Lines, ${parsed.reason}` };
    }
    case 'html': {
      const parsed = findHtmlTable(text, { maxCells: MAX_CELLS, maxCellChars: MAX_CELL_CHARS });
      if (!parsed) return explicit ? { reason: 'the text has no HTML <table>' } : undefined;
      if (!parsed.ok) return { reason: parsed.reason };
      return typed(parsed.header, parsed.records, 2, 'row', format);
    }
    case 'markdown': {
      const parsed = findMarkdownTable(text, { maxCells: MAX_CELLS });
      if (!parsed) return explicit ? { reason: 'the text has no Markdown table' } : undefined;
      if (!parsed.ok) return { reason: parsed.reason };
      return typed(parsed.header, parsed.records, parsed.firstLine, 'line', format);
    }
    case 'csv':
    case 'tsv': {
      const delimiter = format === 'csv' ? ',' : '\t';
      const firstLine = text.slice(0, text.search(/\r|\n|$/));
      if (!explicit && (!firstLine.includes(delimiter) || !/\r|\n/.test(text.trim()))) {
        return undefined;
      }
      const parsed = parseDelimited(text, delimiter, { maxFields: MAX_CELLS });
      if (!parsed.ok) return { reason: `as ${format.toUpperCase()}, ${parsed.reason}` };
      const [header, ...records] = parsed.records;
      if (!header || header.length < (explicit ? 1 : 2)) {
        return explicit ? { reason: `as ${format.toUpperCase()}, it has no header` } : undefined;
      }
      return typed(header, records, 2, 'line', format);
    }
  }
}

function typed(
  header: readonly string[],
  records: readonly string[][],
  firstLine: number,
  unit: string,
  format: TableFormat,
): TextTable | { readonly reason: string } {
  const built = rowsFromHeader(header, records, { typeNumbers: true, firstLine, unit });
  return built.ok ? { rows: built.rows, format } : { reason: `as ${format}, ${built.reason}` };
}

type Block = CallToolResult['content'][number];

function summary(block: Block, index: number): BlockSummary {
  const chars =
    block.type === 'text'
      ? (textOf(block) as string).length
      : block.type === 'image' || block.type === 'audio'
        ? block.data.length
        : JSON.stringify(block).length;
  return { index, type: block.type, chars };
}

/**
 * A text block's text. One kept as bytes ({@link LargeText}) is decoded here, once, and stays
 * decoded in its block: only the table's own block is read from its bytes.
 */
function textOf(block: Block | undefined): string | undefined {
  if (block?.type !== 'text') return undefined;
  const text: unknown = block.text;
  if (text instanceof LargeText) block.text = text.decode();
  return block.text;
}

/** The large text a text block kept as bytes, if it did. */
function largeTextOf(block: Block): LargeText | undefined {
  const text: unknown = block.type === 'text' ? block.text : undefined;
  return text instanceof LargeText ? text : undefined;
}

const TEXT_FORMATS = ['jsonl', 'html', 'markdown', 'csv', 'tsv'] as const;

/** The table one text block holds on its own, in any format (for the repeat check). */
function tableInBlock(text: string, options: FindTableOptions): Row[] | undefined {
  const trimmed = text.trim();
  if (
    (trimmed.startsWith('[') || trimmed.startsWith('{')) &&
    text.length <= options.maxTextLength
  ) {
    try {
      const found = fromDocument(JSON.parse(trimmed), options);
      if (found.kind === 'table') return found.rows;
    } catch {
      // Not JSON: the text formats below may still read it.
    }
  }
  for (const format of TEXT_FORMATS) {
    const found = fromText(text, format, false);
    if (found && 'rows' in found) return found.rows;
  }
  return undefined;
}

/** Same row count and the same columns in the first row: the table again. */
function sameTable(a: readonly Row[], b: readonly Row[]): boolean {
  if (a.length !== b.length) return false;
  const [x] = a;
  const [y] = b;
  return !x || !y || Object.keys(x).join('\0') === Object.keys(y).join('\0');
}

function otherBlocks(
  content: readonly Block[],
  source: FoundTable['source'],
  rows: readonly Row[],
  options: FindTableOptions,
): OtherBlocks {
  const kept: Block[] = [];
  const dropped: BlockSummary[] = [];
  let repeats = 0;
  content.forEach((block, index) => {
    if (index === source) return;
    const text = textOf(block);
    if (text !== undefined && text.length <= options.maxTextLength) {
      const again = tableInBlock(text, options);
      if (again && sameTable(again, rows)) {
        repeats++;
        return;
      }
      if (text.length <= MAX_KEPT_TEXT) {
        kept.push(block);
        return;
      }
    }
    dropped.push(summary(block, index));
  });
  return { kept, repeats, dropped };
}

/**
 * Looks for the table in a tool result, by the rule in the module comment.
 *
 * @param result - the upstream's `tools/call` result
 * @param options - an explicit pointer or format, the model's `table`, and the text size limit
 */
export function findTable(
  result: CallToolResult,
  options: FindTableOptions,
): FoundTable | NotATable {
  const content: readonly Block[] = Array.isArray(result.content) ? result.content : [];
  const notTable = (reason: string, arrays?: TableArray[]): NotATable => ({
    kind: 'not-table',
    reason,
    blocks: content.map(summary),
    ...(arrays && { arrays }),
  });
  if (result.isError) return notTable('the tool returned an error');
  const format = options.format;
  let firstReason: string | undefined;
  const found = (
    rows: Row[],
    source: FoundTable['source'],
    at: {
      pointer: string;
      format: TableFormat;
      arrays?: TableArray[];
      others?: OtherArray[];
      rowTexts?: () => string[] | undefined;
      rowBytes?: () => RowBytes | undefined;
    },
  ): FoundTable => ({
    ...(at.rowTexts && { rowTexts: at.rowTexts }),
    ...(at.rowBytes && { rowBytes: at.rowBytes }),
    kind: 'table',
    rows,
    pointer: at.pointer,
    format: at.format,
    source,
    arrays: at.arrays ?? (rows.length > 0 ? [{ pointer: at.pointer, rows: rows.length }] : []),
    others: at.others ?? [],
    blocks: otherBlocks(content, source, rows, options),
  });

  if (format === undefined || format === 'json') {
    const documents: [FoundTable['source'], () => unknown, string?][] = [];
    // The row texts of the document read with only the `keep` columns' values, when it was.
    let keptTexts: string[] | undefined;
    // The same, read from the bytes of a block kept as bytes.
    let keptBytes: RowBytes | undefined;
    const keeping = options.keep && options.pointer === undefined && options.table === undefined;
    if (result.structuredContent !== undefined) {
      documents.push(['structuredContent', () => result.structuredContent]);
    }
    content.forEach((block, index) => {
      const large = largeTextOf(block);
      if (large && keeping && options.keep && large.bytes.length <= options.maxTextLength) {
        const keep = options.keep;
        const first = large.bytes.find((c) => !WS_BYTE(c));
        if (first !== 91 /* [ */ && first !== 123 /* { */) return;
        documents.push([
          index,
          () => {
            const kept = readKeepingBytes(large.bytes, keep);
            if (kept) {
              keptBytes = kept.source;
              return kept.rows;
            }
            // Not a compact array of objects: read as text, as any other block.
            return readText((textOf(block) as string).trim(), index);
          },
        ]);
        return;
      }
      const text = textOf(block);
      if (text === undefined) return;
      const trimmed = text.trim();
      if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) return;
      documents.push([index, () => readText(trimmed, index), trimmed]);
    });
    /** One text block's JSON document (`undefined`: none, with the reason noted). */
    function readText(trimmed: string, index: number): unknown {
      if (trimmed.length > options.maxTextLength) {
        firstReason ??= `block ${index} is ${trimmed.length.toLocaleString('en-US')} characters, more than the ${options.maxTextLength.toLocaleString('en-US')} the proxy parses`;
        return undefined;
      }
      const kept = keeping && options.keep && readKeeping(trimmed, options.keep);
      if (kept) {
        keptTexts = kept.texts;
        return kept.rows;
      }
      try {
        return JSON.parse(trimmed);
      } catch {
        firstReason ??= `block ${index} is text that is not valid JSON`;
        return undefined;
      }
    }
    for (const [source, read, raw] of documents) {
      const document = read();
      if (document === undefined) continue;
      const inDocument = fromDocument(document, options);
      if (inDocument.kind === 'table') {
        // Compact JSON whose rows are the whole document: their texts can be reused as stored.
        const reusable = raw !== undefined && inDocument.pointer === '' && !raw.includes('\n');
        const texts = keptTexts;
        const bytes = keptBytes;
        keptTexts = undefined;
        keptBytes = undefined;
        return found(inDocument.rows, source, {
          ...inDocument,
          format: 'json',
          ...(bytes && { rowBytes: handOverOnce(bytes) }),
          ...(texts
            ? { rowTexts: handOverOnce(texts) }
            : reusable && { rowTexts: () => arrayElementTexts(raw) }),
        });
      }
      if (inDocument.kind === 'not-table') return notTable(inDocument.reason, inDocument.arrays);
    }
    if (format === 'json')
      return notTable(firstReason ?? 'the result holds no JSON array of objects');
  }

  const formats = format === undefined ? TEXT_FORMATS : [format as Exclude<TableFormat, 'json'>];
  for (const each of formats) {
    for (const [index, block] of content.entries()) {
      const text = textOf(block);
      if (text === undefined) continue;
      if (text.length > options.maxTextLength) {
        firstReason ??= `block ${index} is ${text.length.toLocaleString('en-US')} characters, more than the ${options.maxTextLength.toLocaleString('en-US')} the proxy parses`;
        continue;
      }
      const table = fromText(text, each, format !== undefined);
      if (!table) continue;
      if ('reason' in table) {
        firstReason ??= `block ${index}: ${table.reason}`;
        continue;
      }
      return found(table.rows, index, { pointer: '', format: table.format });
    }
  }
  return notTable(
    firstReason ??
      (content.length === 0
        ? 'the result has no content blocks'
        : 'the result holds no table (JSON, JSON Lines, CSV, TSV, Markdown or HTML)'),
  );
}

/**
 * Hands `texts` over once. Made out here so that it holds nothing else: a closure made in
 * findTable would hold its scope, and with it the upstream's whole result, for as long as the
 * found table lives; the store keeps what it needs of the texts, the rest can go.
 */
function handOverOnce<T>(texts: T): () => T | undefined {
  let held: T | undefined = texts;
  return () => {
    const out = held;
    held = undefined;
    return out;
  };
}

/**
 * A compact JSON array of objects read with only the `keep` columns' values (`rowsKeeping`),
 * with its rows' texts; `undefined` when the text is not one (it is then parsed whole). Line
 * breaks rule it out: a stored row is one line, and its text is stored as it is.
 */
function readKeeping(
  text: string,
  keep: readonly string[],
): { rows: Row[]; texts: string[] } | undefined {
  if (!text.startsWith('[') || text.includes('\n') || text.includes('\r')) return undefined;
  const texts = arrayElementTexts(text);
  if (!texts) return undefined;
  const rows = rowsKeeping(texts, new Set(keep), new Set(sampledRows(texts.length)));
  return rows && { rows, texts };
}

const WS_BYTE = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * {@link readKeeping} on a text's UTF-8 bytes: the rows found by scanning the bytes, each decoded
 * and parsed on its own (a string of one row at a time, never of the table), with where each row
 * is; `undefined` when the bytes are not a compact JSON array of objects.
 */
function readKeepingBytes(
  bytes: Uint8Array,
  keep: readonly string[],
): { rows: Row[]; source: RowBytes } | undefined {
  if (bytes.indexOf(10) >= 0 || bytes.indexOf(13) >= 0) return undefined;
  const ranges = arrayElementRanges(bytes);
  if (!ranges) return undefined;
  const { starts, ends } = ranges;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const texts = {
    length: starts.length,
    at: (i: number) => view.toString('utf8', starts[i], ends[i]),
  };
  const rows = rowsKeeping(texts, new Set(keep), new Set(sampledRows(starts.length)));
  return rows && { rows, source: { bytes, starts, ends } };
}

/** Describes a result's blocks for an error: "2 blocks: text (1,204 characters), image (…)". */
export function describeBlocks(blocks: readonly BlockSummary[]): string {
  if (blocks.length === 0) return 'no content blocks';
  const shown = blocks
    .slice(0, 8)
    .map((b) => `${b.type} (${b.chars.toLocaleString('en-US')} characters)`)
    .join(', ');
  const more = blocks.length > 8 ? ` … and ${blocks.length - 8} more` : '';
  return `${blocks.length} content block${blocks.length === 1 ? '' : 's'}: ${shown}${more}`;
}
