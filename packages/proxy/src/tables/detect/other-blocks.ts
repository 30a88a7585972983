/**
 * What becomes of the content blocks that are not the table (the rule's last paragraph, in
 * `find-table.ts`), and how a block left out is described.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import type { CallToolResult } from '../../mcp-sdk.js';
import type { Steps } from '../formats/parse-steps.js';
import { type Block, textOf } from './block-text.js';
import type { FindTableOptions, TableSource } from './find-options.js';
import { documentSteps } from './json-document.js';
import { TEXT_FORMATS, textSteps } from './text-formats.js';
import { upstreamWordsText, type Words } from './upstream-note.js';

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

/** Characters of a text block that is not the table and is still returned with the abstract. */
export const MAX_KEPT_TEXT = 2_000;

/** A content block as {@link BlockSummary} describes it. */
export function summary(block: Block, index: number): BlockSummary {
  const chars =
    block.type === 'text'
      ? (textOf(block) as string).length
      : block.type === 'image' || block.type === 'audio'
        ? block.data.length
        : JSON.stringify(block).length;
  return { index, type: block.type, chars };
}

/** The table one text block holds on its own, in any format (for the repeat check). */
function* tableInBlock(text: string, options: FindTableOptions): Steps<Row[] | undefined> {
  const trimmed = text.trim();
  if (
    (trimmed.startsWith('[') || trimmed.startsWith('{')) &&
    text.length <= options.maxTextLength
  ) {
    let document: unknown;
    try {
      document = JSON.parse(trimmed);
    } catch {
      // Not JSON: the text formats below may still read it.
    }
    if (document !== undefined) {
      const found = yield* documentSteps(document, options);
      if (found.kind === 'table') return found.rows;
    }
  }
  for (const format of TEXT_FORMATS) {
    const found = yield* textSteps(text, format, false);
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

/**
 * Sorts the blocks other than the table's own (`source`) into kept, repeats and dropped, pausing
 * as it goes (see `parse-steps.ts`).
 */
export function* otherBlocksSteps(
  content: readonly Block[],
  source: TableSource,
  rows: readonly Row[],
  options: FindTableOptions,
): Steps<OtherBlocks> {
  const kept: Block[] = [];
  const dropped: BlockSummary[] = [];
  let repeats = 0;
  for (const [index, block] of content.entries()) {
    if (index === source) continue;
    const text = textOf(block);
    if (text !== undefined && text.length <= options.maxTextLength) {
      const again = yield* tableInBlock(text, options);
      if (again && sameTable(again, rows)) {
        repeats++;
        continue;
      }
      if (text.length <= MAX_KEPT_TEXT) {
        kept.push(block);
        continue;
      }
    }
    dropped.push(summary(block, index));
    yield;
  }
  return { kept, repeats, dropped };
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

/**
 * The prose around the table in its block, as a kept text block labelled as the upstream's words
 * (a long one is described).
 */
export function proseBlock(prose: Words, index: number): Block | BlockSummary {
  const text = upstreamWordsText(prose);
  return prose.before.length + prose.after.length <= MAX_KEPT_TEXT
    ? { type: 'text', text }
    : { index, type: 'text', chars: text.length };
}

/** `blocks` with the prose before the table first among them. */
export function withProse(blocks: OtherBlocks, prose: Block | BlockSummary): OtherBlocks {
  return 'chars' in prose
    ? { ...blocks, dropped: [prose, ...blocks.dropped] }
    : { ...blocks, kept: [prose, ...blocks.kept] };
}

/** The other blocks inside an MCP result in a text block, then those beside that block. */
export function mergeBlocks(inner: OtherBlocks, outer: OtherBlocks): OtherBlocks {
  return {
    kept: [...inner.kept, ...outer.kept],
    repeats: inner.repeats + outer.repeats,
    dropped: [...inner.dropped, ...outer.dropped],
  };
}
