/**
 * Reading one text block in one non-JSON format (step 2 of the rule in `find-table.ts`): JSON
 * Lines, an HTML `<table>`, a Markdown table, CSV or TSV, with the cells of the last four typed.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { parseDelimited } from '../formats/csv.js';
import { rowsFromHeader } from '../formats/header-rows.js';
import { findHtmlTable } from '../formats/html-table.js';
import { parseJsonLines } from '../formats/jsonl.js';
import { findMarkdownTable } from '../formats/markdown.js';
import type { TableFormat } from './find-table.js';

/** Cells of a text-format table (CSV, Markdown, HTML). */
const MAX_CELLS = 20_000_000;
const MAX_CELL_CHARS = 1_000_000;

/** The rows of a text block in one format, and that format. */
export interface TextTable {
  readonly rows: Row[];
  readonly format: TableFormat;
}

/** One text block in one non-JSON format: rows, a reason, or `undefined` (not this format). */
export function fromText(
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

/** The text formats, in the order they are tried. */
export const TEXT_FORMATS = ['jsonl', 'html', 'markdown', 'csv', 'tsv'] as const;
