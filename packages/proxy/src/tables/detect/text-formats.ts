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

import type { Row } from '@s2sp/core';
import { delimitedSteps } from '../formats/csv.js';
import { headerRowsSteps } from '../formats/header-rows.js';
import { htmlTableSteps } from '../formats/html-table.js';
import { jsonLinesSteps } from '../formats/jsonl.js';
import { markdownTableSteps } from '../formats/markdown.js';
import type { Steps } from '../formats/parse-steps.js';

/** Cells of a text-format table (CSV, Markdown, HTML). */
const MAX_CELLS = 20_000_000;
const MAX_CELL_CHARS = 1_000_000;

/** What reading a text in one format gives: rows, a reason, or `undefined` (not this format). */
export type TextRead = { readonly rows: Row[] } | { readonly reason: string } | undefined;

/** One text format of the registry. */
export interface TextTableFormat {
  /** Its name in messages (`CSV`). */
  readonly label: string;
  /**
   * Whether a text may be in this format, looked at cheaply: only texts it accepts are read when
   * the format is not named (a named format reads every text).
   */
  readonly detect: (text: string) => boolean;
  /**
   * Reads a text: rows, why it cannot be read, or `undefined` (not this format after all),
   * pausing as it goes (see `parse-steps.ts`).
   *
   * @param named - the operator named this format: a near miss is a reason, not `undefined`
   */
  readonly read: (text: string, named: boolean) => Steps<TextRead>;
}

/** Rows of text cells under a header, numbers typed where a whole column is numbers. */
function* typed(
  label: string,
  header: readonly string[],
  records: readonly string[][],
  firstLine: number,
  unit: string,
): Steps<TextRead> {
  const built = yield* headerRowsSteps(header, records, { typeNumbers: true, firstLine, unit });
  return built.ok ? { rows: built.rows } : { reason: `as ${label}, ${built.reason}` };
}

/** CSV or TSV: a header line and at least one more, two columns or more unless named. */
function delimited(label: string, delimiter: ',' | '\t'): TextTableFormat {
  return {
    label,
    detect: (text) => {
      const firstLine = text.slice(0, text.search(/\r|\n|$/));
      return firstLine.includes(delimiter) && /\r|\n/.test(text.trim());
    },
    *read(text, named) {
      const parsed = yield* delimitedSteps(text, delimiter, { maxFields: MAX_CELLS });
      if (!parsed.ok) return { reason: `as ${label}, ${parsed.reason}` };
      const [header, ...records] = parsed.records;
      if (!header || header.length < (named ? 1 : 2)) {
        return named ? { reason: `as ${label}, it has no header` } : undefined;
      }
      return yield* typed(label, header, records, 2, 'line');
    },
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
      const trimmed = text.trimStart();
      return trimmed.startsWith('{') && trimmed.includes('\n');
    },
    *read(text) {
      const parsed = yield* jsonLinesSteps(text, { maxRows: MAX_CELLS });
      return parsed.ok ? { rows: parsed.rows } : { reason: `as JSON Lines, ${parsed.reason}` };
    },
  },
  html: {
    label: 'HTML',
    detect: (text) => /<table[\s>/]/i.test(text),
    *read(text, named) {
      const parsed = yield* htmlTableSteps(text, {
        maxCells: MAX_CELLS,
        maxCellChars: MAX_CELL_CHARS,
      });
      if (!parsed) return named ? { reason: 'the text has no HTML <table>' } : undefined;
      if (!parsed.ok) return { reason: parsed.reason };
      return yield* typed('HTML', parsed.header, parsed.records, 2, 'row');
    },
  },
  markdown: {
    label: 'Markdown',
    detect: (text) => text.includes('|'),
    *read(text, named) {
      const parsed = yield* markdownTableSteps(text, { maxCells: MAX_CELLS });
      if (!parsed) return named ? { reason: 'the text has no Markdown table' } : undefined;
      if (!parsed.ok) return { reason: parsed.reason };
      return yield* typed('Markdown', parsed.header, parsed.records, parsed.firstLine, 'line');
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
 * goes (see `parse-steps.ts`).
 *
 * @param named - the operator named the format: every text is read, and a near miss is a reason
 */
export function* textSteps(text: string, format: TextFormat, named: boolean): Steps<TextRead> {
  const entry: TextTableFormat = TEXT_TABLE_FORMATS[format];
  if (!named && !entry.detect(text)) return undefined;
  return yield* entry.read(text, named);
}
