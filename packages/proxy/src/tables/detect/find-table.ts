/**
 * Finding the table in an upstream tool result. The one rule (the README states it):
 *
 * 1. **JSON first.** `structuredContent`, then each text block in order, parsed as JSON (the
 *    whole block, or the document among prose: from the first line starting with `[` or `{` to
 *    the bracket closing it, prose before and/or after it, see `prose-around.ts`): the table is the
 *    document when it is an array of objects, else the one non-empty array of objects (or
 *    `{"columns": [...], "rows": [[...]]}` header-plus-arrays object) found in its objects, up to
 *    `MAX_DEPTH` levels down (an array of one object whose only array of objects is its
 *    `rows`/`data`/`values`/`records`: that inner array, one statement's rows); with none
 *    non-empty, its one empty array (0 rows); with no array,
 *    the one string member holding a table in a text format. Several non-empty arrays: the model
 *    names one (`table`), else the call is refused listing them. A document that is an MCP tool
 *    result (`{"content": [...]}`) is searched inside by this rule, one level deep. The first
 *    document holding any of these decides; what the objects around its table say about the
 *    answer (partial, a hint) comes with it (`upstream-note.ts`).
 * 2. **Then the text formats** of the registry (`text-formats.ts`), each over the text blocks in
 *    order: JSON Lines, then an HTML `<table>`, then a Markdown table, then CSV or TSV.
 * 3. A known table tool's answer of short prose alone (`knownTable`) is its table of 0 rows.
 * 4. An explicit rule (`--table-tool NAME:POINTER` and/or a `format`) tries only what it names;
 *    a pointer with a text format names the string member holding the table.
 *
 * Every other content block is accounted for: a text block that holds the same table again is a
 * repeat (dropped, counted); other text blocks up to `MAX_KEPT_TEXT` characters are kept;
 * the rest are dropped and described (type and size). Other arrays of the table's document are
 * returned beside it, never lost.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import type { CallToolResult } from '../../mcp-sdk.js';
import { arrayElementTexts, WS } from '../formats/json-rows.js';
import { runNow, type Steps } from '../formats/parse-steps.js';
import type { RowBytes } from '../s2sp-call.js';
import { type Block, largeTextOf, textOf } from './block-text.js';
import { contentWrapper } from './content-wrapper.js';
import type { FindTableOptions, TableSource } from './find-options.js';
import { documentSteps, type OtherArray, type TableArray } from './json-document.js';
import { handOverOnce, readKeeping, readKeepingBytes } from './keep-values.js';
import {
  type BlockSummary,
  MAX_KEPT_TEXT,
  mergeBlocks,
  type OtherBlocks,
  otherBlocksSteps,
  proseBlock,
  summary,
  withProse,
} from './other-blocks.js';
import { type ProseAround, proseAround } from './prose-around.js';
import {
  foundStringTable,
  namedStringTable,
  type StringRead,
  type StringTable,
} from './string-table.js';
import {
  FORMATS_IN_WORDS,
  type TableFormat,
  TEXT_FORMATS,
  type TextTable,
  textSteps,
} from './text-formats.js';
import { type UpstreamNote, upstreamNote, upstreamWordsText } from './upstream-note.js';

export type { FindTableOptions } from './find-options.js';

/** A table found in a result. */
export interface FoundTable {
  readonly kind: 'table';
  readonly rows: readonly Row[];
  /** Where the rows were, as a JSON Pointer into the parsed document (`""`: the document). */
  readonly pointer: string;
  readonly format: TableFormat;
  /** `structuredContent`, or the index of the content block that held the table. */
  readonly source: TableSource;
  /** Every non-empty array of objects of the table's document, the table's own included. */
  readonly arrays: readonly TableArray[];
  /** The non-empty arrays that are not the table. */
  readonly others: readonly OtherArray[];
  readonly blocks: OtherBlocks;
  /**
   * The JSON text of each row, as slices of the upstream's text, when the table is a compact
   * top-level JSON array in a text block (for `RowJson`: stored without a copy). Rows read
   * with `keep` hand their texts over once (later calls: `undefined`).
   */
  readonly rowTexts?: () => string[] | undefined;
  /**
   * The rows' JSON as bytes, when the table is a compact top-level JSON array in a text block the
   * upstream's answer kept as bytes ({@link LargeText}) and was read with `keep` (for
   * `RowJson`: stored from those bytes, in place). Handed over once.
   */
  readonly rowBytes?: () => RowBytes | undefined;
  /**
   * What the upstream said about its answer beside the table (that it is partial, its hint),
   * returned to the model after the abstract.
   */
  readonly note?: UpstreamNote;
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
  return runNow(findTableSteps(result, options));
}

/**
 * {@link findTable}, pausing as it goes: the proxy runs it in slices (`runInSlices`), so that a
 * large table's parse never holds the other clients' requests (see `parse-steps.ts`).
 */
export function* findTableSteps(
  result: CallToolResult,
  options: FindTableOptions,
  wrapped = false,
): Steps<FoundTable | NotATable> {
  const content: readonly Block[] = Array.isArray(result.content) ? result.content : [];
  const notTable = (reason: string, arrays?: readonly TableArray[]): NotATable => ({
    kind: 'not-table',
    reason,
    blocks: content.map(summary),
    ...(arrays && { arrays }),
  });
  if (result.isError) return notTable('the tool returned an error');
  const format = options.format;
  const textFormat = format === 'json' ? undefined : format;
  let firstReason: string | undefined;
  function* found(
    rows: Row[],
    source: FoundTable['source'],
    at: {
      pointer: string;
      format: TableFormat;
      arrays?: readonly TableArray[];
      others?: readonly OtherArray[];
      rowTexts?: () => string[] | undefined;
      rowBytes?: () => RowBytes | undefined;
      note?: UpstreamNote | undefined;
      /** Prose around the table in its own block, kept as the upstream's words. */
      prose?: ProseAround | undefined;
    },
  ): Steps<FoundTable> {
    const blocks = yield* otherBlocksSteps(content, source, rows, options);
    const prose = at.prose && typeof source === 'number' ? proseBlock(at.prose, source) : undefined;
    return {
      ...(at.rowTexts && { rowTexts: at.rowTexts }),
      ...(at.rowBytes && { rowBytes: at.rowBytes }),
      ...(at.note && { note: at.note }),
      kind: 'table',
      rows,
      pointer: at.pointer,
      format: at.format,
      source,
      arrays: at.arrays ?? (rows.length > 0 ? [{ pointer: at.pointer, rows: rows.length }] : []),
      others: at.others ?? [],
      blocks: prose ? withProse(blocks, prose) : blocks,
    };
  }

  // JSON documents: always for the json format, and for any format with a pointer (a text table
  // inside a string member).
  if (format === undefined || format === 'json' || options.pointer !== undefined) {
    /**
     * A document to search: where it is, how to read it, its text when it came as one, and the
     * prose around it in its block (both found as it is read, for a block that starts with it).
     */
    interface Entry {
      readonly source: FoundTable['source'];
      read: () => Steps<unknown>;
      raw?: string;
      prose?: ProseAround;
    }
    const documents: Entry[] = [];
    // The row texts of the document read with only the `keep` columns' values, when it was.
    let keptTexts: string[] | undefined;
    // The same, read from the bytes of a block kept as bytes.
    let keptBytes: RowBytes | undefined;
    const keeping = options.keep && options.pointer === undefined && options.table === undefined;
    if (result.structuredContent !== undefined) {
      const structured = result.structuredContent;
      documents.push({
        source: 'structuredContent',
        read: function* () {
          yield;
          return structured;
        },
      });
    }
    content.forEach((block, index) => {
      const large = largeTextOf(block);
      if (large && keeping && options.keep && large.bytes.length <= options.maxTextLength) {
        const keep = options.keep;
        const first = large.bytes.find((c) => !WS(c));
        if (first !== 91 /* [ */ && first !== 123 /* { */) return;
        const entry: Entry = {
          source: index,
          read: function* () {
            const kept = yield* readKeepingBytes(large.bytes, keep);
            if (kept) {
              keptBytes = kept.source;
              return kept.rows;
            }
            // Not a compact array of objects: read as text, as any other block.
            return yield* readText((textOf(block) as string).trim(), index, entry);
          },
        };
        documents.push(entry);
        return;
      }
      const text = textOf(block);
      if (text === undefined) return;
      const trimmed = text.trim();
      if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
        const entry: Entry = {
          source: index,
          raw: trimmed,
          read: () => readText(trimmed, index, entry),
        };
        documents.push(entry);
        return;
      }
      // Prose, then a JSON document on a line of its own ("Query executed successfully. Rows:
      // 3\n[{...}]"), maybe more prose after it: the document is read; the prose is kept beside
      // the table.
      const around = proseAround(trimmed);
      if (around) {
        documents.push({
          source: index,
          raw: around.json,
          prose: around,
          read: () => readText(around.json, index, undefined, true),
        });
      }
    });
    /**
     * One text block's JSON document (`undefined`: none, with the reason noted). A block that
     * starts with a document and goes on in prose ("[...]\n\nTotal rows: 42") is read around
     * it: `entry` then learns the document's text and the prose.
     */
    function* readText(
      trimmed: string,
      index: number,
      entry?: Entry,
      quiet = false,
    ): Steps<unknown> {
      if (trimmed.length > options.maxTextLength) {
        firstReason ??= `block ${index} is ${trimmed.length.toLocaleString('en-US')} characters, more than the ${options.maxTextLength.toLocaleString('en-US')} the proxy parses`;
        return undefined;
      }
      const kept = keeping && options.keep && (yield* readKeeping(trimmed, options.keep));
      if (kept) {
        keptTexts = kept.texts;
        return kept.rows;
      }
      try {
        return JSON.parse(trimmed);
      } catch {
        const around = entry && proseAround(trimmed);
        if (entry && around) {
          try {
            const document: unknown = JSON.parse(around.json);
            entry.raw = around.json;
            entry.prose = around;
            return document;
          } catch {
            // Not a document with prose after it either: the reason below.
          }
        }
        if (!quiet) firstReason ??= `block ${index} is text that is not valid JSON`;
        return undefined;
      }
    }
    for (const entry of documents) {
      const { source } = entry;
      const document = yield* entry.read();
      const { raw, prose } = entry;
      if (document === undefined) continue;
      const at = typeof source === 'number' ? `block ${source}` : 'structuredContent';
      // An MCP tool result written into a text block (`{"content": [{"type": "text", ...}]}`):
      // its own blocks are searched, never taken for a table of `type, text`.
      const inner = options.pointer === undefined ? contentWrapper(document) : undefined;
      if (inner) {
        if (wrapped) return notTable(`${at} holds an MCP tool result inside another`);
        const inside = yield* findTableSteps(inner, options, true);
        if (inside.kind === 'not-table') {
          return notTable(
            `${at} holds an MCP tool result ({"content": [...]}) as text, and inside it ${inside.reason}`,
            inside.arrays,
          );
        }
        const outer = yield* otherBlocksSteps(content, source, inside.rows, options);
        return { ...inside, source, blocks: mergeBlocks(inside.blocks, outer) };
      }
      // A text table in a string member, named by the pointer or the only one there is.
      const named =
        options.pointer &&
        (yield* namedStringTable(document, options.pointer, textFormat, options.keep));
      if (named || textFormat !== undefined) {
        const read: StringRead = named || {
          reason: `${at} has no string at the configured pointer`,
        };
        if ('reason' in read) {
          firstReason ??= read.reason;
          continue;
        }
        return yield* fromString(read, document, source, prose);
      }
      const inDocument = yield* documentSteps(document, options);
      if (inDocument.kind === 'table') {
        // Compact JSON whose rows are the whole document: their texts can be reused as stored.
        const reusable = raw !== undefined && inDocument.pointer === '' && !raw.includes('\n');
        const texts = keptTexts;
        const bytes = keptBytes;
        keptTexts = undefined;
        keptBytes = undefined;
        return yield* found(inDocument.rows, source, {
          ...inDocument,
          format: 'json',
          note: upstreamNote(document, inDocument.pointer, inDocument.rows.length),
          prose,
          ...(bytes && { rowBytes: handOverOnce(bytes) }),
          ...(texts
            ? { rowTexts: handOverOnce(texts) }
            : reusable && { rowTexts: () => arrayElementTexts(raw) }),
        });
      }
      if (inDocument.kind === 'not-table') return notTable(inDocument.reason, inDocument.arrays);
      if (options.pointer === undefined && options.table === undefined) {
        const inString = yield* foundStringTable(document, options.keep);
        if (inString && 'reason' in inString) return notTable(`${at}: ${inString.reason}`);
        if (inString) return yield* fromString(inString, document, source, prose);
      }
    }
    if (format === 'json' || (textFormat !== undefined && options.pointer !== undefined))
      return notTable(firstReason ?? 'the result holds no JSON array of objects');
  }

  /** The table of a string member: its rows, and what the members around it say. */
  function* fromString(
    table: StringTable,
    document: unknown,
    source: FoundTable['source'],
    prose: ProseAround | undefined,
  ): Steps<FoundTable> {
    return yield* found(table.rows, source, {
      pointer: table.pointer,
      format: table.format,
      note: upstreamNote(document, table.pointer, table.rows.length),
      prose,
      ...compact(table),
    });
  }

  const formats = textFormat === undefined ? TEXT_FORMATS : [textFormat];
  for (const each of formats) {
    for (const [index, block] of content.entries()) {
      // A text kept as bytes is read from them by a format that can, and decoded for one that
      // cannot (once: it stays decoded in its block).
      const large = largeTextOf(block);
      const text = large
        ? { bytes: large.bytes, decode: () => textOf(block) ?? '' }
        : textOf(block);
      if (text === undefined) continue;
      const length = typeof text === 'string' ? text.length : text.bytes.length;
      if (length > options.maxTextLength) {
        firstReason ??= `block ${index} is ${length.toLocaleString('en-US')} characters, more than the ${options.maxTextLength.toLocaleString('en-US')} the proxy parses`;
        continue;
      }
      const table = yield* textSteps(text, each, format !== undefined, options.keep);
      if (!table) continue;
      if ('reason' in table) {
        firstReason ??= `block ${index}: ${table.reason}`;
        continue;
      }
      // Read from the bytes, the table holds copies of its values: the bytes are read no more,
      // and their buffer goes back to the system now rather than at a full collection.
      if (large && largeTextOf(block) === large) large.release();
      return yield* found(table.rows, index, { pointer: '', format: each, ...compact(table) });
    }
  }
  const words = options.knownTable && firstReason === undefined ? proseOnly(content) : undefined;
  if (words !== undefined) {
    return {
      kind: 'table',
      rows: [],
      pointer: '',
      format: 'json',
      source: 0,
      arrays: [],
      others: [],
      blocks: {
        kept: [{ type: 'text', text: upstreamWordsText({ before: words, after: '' }, false) }],
        repeats: 0,
        dropped: [],
      },
    };
  }
  return notTable(
    firstReason ??
      (content.length === 0
        ? 'the result has no content blocks'
        : `the result holds no table (${FORMATS_IN_WORDS})`),
  );
}

/**
 * The text of an answer that is short prose alone: text blocks only, at most `MAX_KEPT_TEXT`
 * characters in all (a longer text is not a short "no rows" answer), joined by blank lines.
 */
function proseOnly(content: readonly Block[]): string | undefined {
  if (content.length === 0 || content.some((block) => block.type !== 'text')) return undefined;
  const text = content
    .map((block) => (textOf(block) as string).trim())
    .filter((each) => each !== '')
    .join('\n\n');
  return text !== '' && text.length <= MAX_KEPT_TEXT ? text : undefined;
}

/** The rows' JSON of a text table read with `keep`, handed over once (see {@link FoundTable}). */
function compact(table: TextTable): Pick<FoundTable, 'rowTexts' | 'rowBytes'> {
  return {
    ...(table.rowTexts && { rowTexts: handOverOnce(table.rowTexts) }),
    ...(table.rowBytes && { rowBytes: handOverOnce(table.rowBytes) }),
  };
}
