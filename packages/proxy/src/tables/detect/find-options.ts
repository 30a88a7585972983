/**
 * What table detection is told, apart from `find-table.ts` so that the readers it calls
 * (`json-document.ts`, `other-blocks.ts`) name it without importing the detector that calls them.
 *
 * @module
 */

import type { TableFormat } from './text-formats.js';

/** Where a table was found: `structuredContent`, or the index of the content block that held it. */
export type TableSource = 'structuredContent' | number;

/** Options for `findTable` (`find-table.ts`). */
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
   * the catalogue samples (see `rowsKeepingSteps`); its `rowTexts` are then always set, and the rows
   * are only good for their columns and for storing through their texts.
   */
  readonly keep?: readonly string[];
  /**
   * The tool is known to answer with tables (it declares one, is configured, or returned one to
   * this client): an answer of short prose alone, with no table in any format ("Query executed
   * successfully but returned no results."), is then its table of 0 rows, the prose kept as the
   * upstream's words.
   */
  readonly knownTable?: boolean;
}
