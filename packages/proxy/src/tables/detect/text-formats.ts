/**
 * Reading one text block in one non-JSON format (step 2 of the rule in `find-table.ts`): JSON
 * Lines, an HTML `<table>`, a Markdown table, CSV or TSV, with the cells of the last four typed.
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
import type { TableFormat } from './find-table.js';

/** Cells of a text-format table (CSV, Markdown, HTML). */
const MAX_CELLS = 20_000_000;
const MAX_CELL_CHARS = 1_000_000;

/** The rows of a text block in one format, and that format. */
export interface TextTable {
  readonly rows: Row[];
  readonly format: TableFormat;
}

/** What reading a text block in one format gives: rows, a reason, or `undefined` (not this format). */
export type TextRead = TextTable | { readonly reason: string } | undefined;

/**
 * One text block in one non-JSON format: rows, a reason, or `undefined` (not this format),
 * pausing as it goes (see `parse-steps.ts`).
 */
export function* textSteps(
  text: string,
  format: Exclude<TableFormat, 'json'>,
  explicit: boolean,
): Steps<TextRead> {
  switch (format) {
    case 'jsonl': {
      const trimmed = text.trimStart();
      if (!explicit && (!trimmed.startsWith('{') || !trimmed.includes('\n'))) return undefined;
      const parsed = yield* jsonLinesSteps(text, { maxRows: MAX_CELLS });
      return parsed.ok
        ? { rows: parsed.rows, format }
        : { reason: `as JSON Lines, ${parsed.reason}` };
    }
    case 'html': {
      const parsed = yield* htmlTableSteps(text, {
        maxCells: MAX_CELLS,
        maxCellChars: MAX_CELL_CHARS,
      });
      if (!parsed) return explicit ? { reason: 'the text has no HTML <table>' } : undefined;
      if (!parsed.ok) return { reason: parsed.reason };
      return yield* typed(parsed.header, parsed.records, 2, 'row', format);
    }
    case 'markdown': {
      const parsed = yield* markdownTableSteps(text, { maxCells: MAX_CELLS });
      if (!parsed) return explicit ? { reason: 'the text has no Markdown table' } : undefined;
      if (!parsed.ok) return { reason: parsed.reason };
      return yield* typed(parsed.header, parsed.records, parsed.firstLine, 'line', format);
    }
    case 'csv':
    case 'tsv': {
      const delimiter = format === 'csv' ? ',' : '\t';
      const firstLine = text.slice(0, text.search(/\r|\n|$/));
      if (!explicit && (!firstLine.includes(delimiter) || !/\r|\n/.test(text.trim()))) {
        return undefined;
      }
      const parsed = yield* delimitedSteps(text, delimiter, { maxFields: MAX_CELLS });
      if (!parsed.ok) return { reason: `as ${format.toUpperCase()}, ${parsed.reason}` };
      const [header, ...records] = parsed.records;
      if (!header || header.length < (explicit ? 1 : 2)) {
        return explicit ? { reason: `as ${format.toUpperCase()}, it has no header` } : undefined;
      }
      return yield* typed(header, records, 2, 'line', format);
    }
  }
}

function* typed(
  header: readonly string[],
  records: readonly string[][],
  firstLine: number,
  unit: string,
  format: TableFormat,
): Steps<TextTable | { readonly reason: string }> {
  const built = yield* headerRowsSteps(header, records, { typeNumbers: true, firstLine, unit });
  return built.ok ? { rows: built.rows, format } : { reason: `as ${format}, ${built.reason}` };
}

/** The text formats, in the order they are tried. */
export const TEXT_FORMATS = ['jsonl', 'html', 'markdown', 'csv', 'tsv'] as const;
