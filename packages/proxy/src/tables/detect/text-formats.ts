/**
 * The text formats a table may come in besides JSON documents, as one table:
 * {@link TEXT_TABLE_FORMATS}. Each entry is a format's name, its place in the try order (the
 * entries' order), a cheap detector, and the reader that turns a text into rows with its parser in
 * `../formats/`. The format type, the try order, `--table-tool`'s list, the `--help` text, the
 * errors and the README's list all derive from it: a new format is its parser (and its test) and
 * one entry here. CONTRIBUTING.md ("Add a table format") walks through one.
 *
 * @module
 */

import { Buffer } from 'node:buffer';
import type { Row } from '@s2sp/core';
import { sampledRows } from '../column-catalogue.js';
import { delimitedSteps } from '../formats/csv.js';
import { htmlTableSteps } from '../formats/html-table.js';
import { rowsKeepingSteps } from '../formats/json-rows.js';
import { jsonLinesSteps, lineTextsSteps } from '../formats/jsonl.js';
import { markdownTableSteps } from '../formats/markdown.js';
import type { Steps } from '../formats/parse-steps.js';
import { type RecordPass, recordTableSteps } from '../formats/record-table.js';
import type { RowBytes } from '../s2sp-call.js';

/** Cells of a text-format table (CSV, Markdown, HTML). */
const MAX_CELLS = 20_000_000;
const MAX_CELL_CHARS = 1_000_000;

/**
 * A table read from a text. Read with `keep`, its rows hold only the kept values (whole in the
 * rows the catalogue samples) and the rows' JSON comes as texts or bytes for the store, as a
 * compact JSON array's do (see `FindTableOptions.keep`).
 */
export interface TextTable {
  readonly rows: Row[];
  /** Each row's JSON, one line each (JSON Lines read with `keep`). */
  readonly rowTexts?: string[];
  /** Every row's JSON in one buffer (the other formats read with `keep`). */
  readonly rowBytes?: RowBytes;
}

/** What reading a text in one format gives: rows, a reason, or `undefined` (not this format). */
export type TextRead = TextTable | { readonly reason: string } | undefined;

/**
 * A text as the detectors look at it: a string, or a large text's UTF-8 (as a `Buffer`, whose
 * `indexOf` and `includes` search it as a string's do). Detectors look only for ASCII, which
 * in UTF-8 is never part of another character, so both give the same answer.
 */
export type ProbeText = string | Buffer;

/** A text to read: a string, or a large text's UTF-8 and the way to decode it when needed. */
export type TextInput = string | { readonly bytes: Uint8Array; decode(): string };

/** One text format of the registry. */
export interface TextTableFormat {
  /** Its name in messages (`CSV`). */
  readonly label: string;
  /**
   * Whether a text may be in this format, looked at cheaply: only texts it accepts are read when
   * the format is not named (a named format reads every text).
   */
  readonly detect: (text: ProbeText) => boolean;
  /**
   * Reads a text: rows, why it cannot be read, or `undefined` (not this format after all),
   * pausing as it goes (see `parse-steps.ts`).
   *
   * @param named - the operator named this format: a near miss is a reason, not `undefined`
   * @param keep - the only columns whose values are needed (see {@link TextTable})
   */
  readonly read: (text: string, named: boolean, keep?: readonly string[]) => Steps<TextRead>;
  /**
   * Reads a large text from its UTF-8, as `read` reads the string, never decoding it whole. A
   * format without it is given the decoded text.
   */
  readonly readBytes?: (
    bytes: Uint8Array,
    named: boolean,
    keep?: readonly string[],
  ) => Steps<TextRead>;
}

/** The code unit (string) or byte (UTF-8) at `at`; NaN past the end. */
function codeAt(text: ProbeText, at: number): number {
  return typeof text === 'string' ? text.charCodeAt(at) : (text[at] ?? Number.NaN);
}

/** Space, tab, line feed, carriage return, vertical tab, form feed. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** Index of the first character that is not ASCII white space (the length when none is). */
function firstNonSpace(text: ProbeText): number {
  let at = 0;
  while (at < text.length && isSpace(codeAt(text, at))) at++;
  return at;
}

/** Index of the last character that is not ASCII white space (-1 when none is). */
function lastNonSpace(text: ProbeText): number {
  let at = text.length - 1;
  while (at >= 0 && isSpace(codeAt(text, at))) at--;
  return at;
}

/** Whether the text, white space around it aside, spans more than one line. */
function severalLines(text: ProbeText): boolean {
  const first = firstNonSpace(text);
  const last = lastNonSpace(text);
  const lf = text.indexOf('\n', first);
  const cr = text.indexOf('\r', first);
  return (lf >= 0 && lf < last) || (cr >= 0 && cr < last);
}

/** Whether the text has an HTML `<table` tag, in any case (`<table>`, `<TABLE class=…>`). */
function hasTableTag(text: ProbeText): boolean {
  const name = 'table';
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) {
    let k = 0;
    while (k < name.length && (codeAt(text, at + 1 + k) | 32) === name.charCodeAt(k)) k++;
    if (k < name.length) continue;
    const next = codeAt(text, at + 1 + name.length);
    if (isSpace(next) || next === 62 /* > */ || next === 47 /* / */) return true;
  }
  return false;
}

/**
 * The table of a format that reads as a header and records of text cells, built by
 * `recordTableSteps` from two runs of its parser.
 */
function* records(
  label: string,
  pass: RecordPass,
  text: string | Uint8Array,
  at: { firstLine: number; unit: string; minColumns: number; keep?: readonly string[] | undefined },
): Steps<TextRead> {
  const built = yield* recordTableSteps(pass, text.length, {
    label,
    firstLine: at.firstLine,
    unit: at.unit,
    minColumns: at.minColumns,
    ...(at.keep && { keep: at.keep }),
  });
  if (!built || 'reason' in built) return built;
  return { rows: built.rows, ...(built.bytes && { rowBytes: built.bytes }) };
}

/**
 * CSV or TSV: a header line and at least one more, two columns or more unless named; read from a
 * large text's UTF-8 a piece at a time (see `csv.ts`).
 */
function delimited(label: string, delimiter: ',' | '\t'): TextTableFormat {
  function* read(
    text: string | Uint8Array,
    named: boolean,
    keep?: readonly string[],
  ): Steps<TextRead> {
    return yield* records(
      label,
      function* (record) {
        const parsed = yield* delimitedSteps(text, delimiter, { maxFields: MAX_CELLS }, record);
        return parsed.ok ? parsed : { ok: false, reason: `as ${label}, ${parsed.reason}` };
      },
      text,
      { firstLine: 2, unit: 'line', minColumns: named ? 1 : 2, keep },
    );
  }
  return {
    label,
    detect: (text) => {
      const lineEnds = [text.indexOf('\n'), text.indexOf('\r')].filter((at) => at >= 0);
      const firstLine = lineEnds.length > 0 ? Math.min(...lineEnds) : text.length;
      const at = text.indexOf(delimiter);
      return at >= 0 && at < firstLine && severalLines(text);
    },
    read,
    readBytes: read,
  };
}

/**
 * The text formats, in the order they are tried (after JSON documents): the first that reads a
 * text block wins.
 */
export const TEXT_TABLE_FORMATS = Object.freeze({
  jsonl: {
    label: 'JSON Lines',
    detect: (text) => {
      const first = firstNonSpace(text);
      return codeAt(text, first) === 123 /* { */ && text.includes('\n', first);
    },
    *read(text, _named, keep) {
      if (keep) {
        // As a compact JSON array is read: each line's text stored as it is, only kept values.
        const lines = yield* lineTextsSteps(text, MAX_CELLS);
        const rows =
          lines &&
          (yield* rowsKeepingSteps(lines, new Set(keep), new Set(sampledRows(lines.length))));
        if (lines && rows) return { rows, rowTexts: lines };
      }
      const parsed = yield* jsonLinesSteps(text, { maxRows: MAX_CELLS });
      return parsed.ok ? { rows: parsed.rows } : { reason: `as JSON Lines, ${parsed.reason}` };
    },
  },
  html: {
    label: 'HTML',
    detect: hasTableTag,
    *read(text, named, keep) {
      const limits = { maxCells: MAX_CELLS, maxCellChars: MAX_CELL_CHARS };
      return yield* records(
        'HTML',
        function* (record) {
          const parsed = yield* htmlTableSteps(text, limits, record);
          if (!parsed)
            return named ? { ok: false, reason: 'the text has no HTML <table>' } : undefined;
          return parsed;
        },
        text,
        { firstLine: 2, unit: 'row', minColumns: 1, keep },
      );
    },
  },
  markdown: {
    label: 'Markdown',
    detect: (text) => text.includes('|'),
    *read(text, named, keep) {
      return yield* records(
        'Markdown',
        function* (record) {
          const parsed = yield* markdownTableSteps(text, { maxCells: MAX_CELLS }, record);
          if (!parsed)
            return named ? { ok: false, reason: 'the text has no Markdown table' } : undefined;
          return parsed;
        },
        text,
        // The parser checks each line's cells against the header itself, naming the line.
        { firstLine: 0, unit: 'line', minColumns: 1, keep },
      );
    },
  },
  csv: delimited('CSV', ','),
  tsv: delimited('TSV', '\t'),
} satisfies Record<string, TextTableFormat>);

/** A text format's name (`--table-tool NAME:FORMAT`). */
export type TextFormat = keyof typeof TEXT_TABLE_FORMATS;

/** The text formats, in the order they are tried. */
export const TEXT_FORMATS = Object.freeze(Object.keys(TEXT_TABLE_FORMATS) as TextFormat[]);

/** The formats a table may come in: JSON documents first, then the text formats. */
export const TABLE_FORMATS: readonly ['json', ...TextFormat[]] = Object.freeze([
  'json' as const,
  ...TEXT_FORMATS,
]);

/** A format a table may come in (`--table-tool NAME:POINTER:FORMAT`). */
export type TableFormat = 'json' | TextFormat;

/** The formats in words, for messages: "JSON, JSON Lines, HTML, Markdown, CSV or TSV". */
export const FORMATS_IN_WORDS: string = ((labels: string[]) =>
  `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`)([
  'JSON',
  ...TEXT_FORMATS.map((name) => TEXT_TABLE_FORMATS[name].label),
]);

/** Whether `name` is a format of the registry (`json` included). */
export function isTableFormat(name: string): name is TableFormat {
  return (TABLE_FORMATS as readonly string[]).includes(name);
}

/**
 * One text in one text format: rows, a reason, or `undefined` (not this format), pausing as it
 * goes (see `parse-steps.ts`). A large text given as bytes is decoded only for a format that
 * reads strings alone, and only once that format's detector accepts it.
 *
 * @param named - the operator named the format: every text is read, and a near miss is a reason
 * @param keep - the only columns whose values are needed (see {@link TextTable})
 */
export function* textSteps(
  text: TextInput,
  format: TextFormat,
  named: boolean,
  keep?: readonly string[],
): Steps<TextRead> {
  const entry: TextTableFormat = TEXT_TABLE_FORMATS[format];
  const probe =
    typeof text === 'string'
      ? text
      : Buffer.from(text.bytes.buffer, text.bytes.byteOffset, text.bytes.length);
  if (!named && !entry.detect(probe)) return undefined;
  if (typeof text === 'string') return yield* entry.read(text, named, keep);
  if (entry.readBytes) return yield* entry.readBytes(text.bytes, named, keep);
  return yield* entry.read(text.decode(), named, keep);
}
