/**
 * The resource tool's result objects (PROTOCOL §2): async, sync and plain.
 *
 * @module
 */

import type { RowWithId, S2SPResult } from '@s2sp/core';
import { z } from 'zod';
import type { ColumnSplit } from './column-split.js';
import { stringifyJson } from './stringify-json.js';
import type { Table } from './table.js';

/** How the body travels: cached behind a `resource_url` (`async`) or inline (`sync`). */
export const ModeSchema = z.enum(['async', 'sync']);

/** The `mode` argument of a resource tool. */
export type Mode = z.infer<typeof ModeSchema>;

/**
 * The async-mode result: abstract rows plus the capability URL; no body.
 *
 * @param split - from {@link splitColumns}
 * @param access - the minted `resource_url` and its expiry
 * @param abstract - the abstract rows it holds (default: all of them, made now)
 */
export function buildAsyncResult(
  split: ColumnSplit,
  access: { resourceUrl: string; expiresAt: Date },
  abstract: RowWithId[] = split.abstract.slice(),
): S2SPResult {
  return {
    total_rows: split.abstract.length,
    abstract_domains: [...split.abstractDomains],
    body_domains: [...split.bodyDomains],
    abstract,
    resource_url: access.resourceUrl,
    expires_at: expiryStamp(access.expiresAt),
  };
}

/**
 * `expires_at` as the model reads it: ISO 8601 UTC to the whole second, rounded down, so the
 * stated time is never later than the entry's real expiry. The milliseconds cost the model two
 * tokens on every call and tell it nothing it can act on.
 *
 * @example expiryStamp(new Date('2026-11-22T10:10:00.427Z')) // '2026-11-22T10:10:00Z'
 */
export function expiryStamp(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

/**
 * The sync-mode result: abstract rows plus the body rows inline; nothing is cached.
 *
 * @param split - from {@link splitColumns}
 * @param body - from {@link bodyRows}
 */
export function buildSyncResult(split: ColumnSplit, body: RowWithId[]): S2SPResult {
  return {
    total_rows: split.abstract.length,
    abstract_domains: [...split.abstractDomains],
    body_domains: [...split.bodyDomains],
    abstract: split.abstract.slice(),
    body,
  };
}

/** Where a part is in a text: from `start` to just before `end`. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * The compact JSON of a sync-mode result, from the JSON of its parts: the abstract is serialised
 * once, when the result is measured against the budget (before its body is made), and the body
 * once, for the text; the text without the body, what the model reads, is the same parts less one.
 */
export interface SyncResultJson {
  /** Where the JSON of the result's `abstract` is, in each text made here. */
  readonly abstract: TextSpan;
  /** `serializeS2SPResult(result)` with `body` as this JSON. */
  withBody(body: string): string;
  /** Where a body JSON of `length` characters is in the text `withBody` makes with it. */
  bodySpan(length: number): TextSpan;
  /** `serializeS2SPResult(result)` without its `body`. */
  readonly withoutBody: string;
}

// Where the rows go in the result's JSON: `buildSyncResult` puts `body` right after `abstract`.
const SYNC_ROWS = '"abstract":[],"body":[]';
const ABSTRACT = '"abstract":';
const BODY = ',"body":';

/**
 * {@link SyncResultJson} of a result from {@link buildSyncResult}, whose `abstract` is made.
 *
 * @throws S2SPError `invalid_rows` when a value cannot be serialised
 */
export function syncResultJson(result: S2SPResult): SyncResultJson {
  const abstract = stringifyJson(result.abstract, 'The S2SP result');
  const frame = serializeS2SPResult({ ...result, abstract: [], body: [] });
  // Where the keys are, not a value: a quote inside a JSON string is escaped.
  const at = frame.indexOf(SYNC_ROWS);
  if (at < 0) throw new Error('A sync result must have "body" right after "abstract".');
  const start = at + ABSTRACT.length;
  const head = `${frame.slice(0, start)}${abstract}`;
  const tail = frame.slice(at + SYNC_ROWS.length);
  return {
    abstract: { start, end: head.length },
    withBody: (body) => `${head}${BODY}${body}${tail}`,
    bodySpan: (length) => ({
      start: head.length + BODY.length,
      end: head.length + BODY.length + length,
    }),
    withoutBody: head + tail,
  };
}

/**
 * Compact JSON of a plain (non-S2SP) tool result: the rows exactly as the tool returned them.
 * @throws S2SPError `invalid_rows` when a value cannot be serialised
 */
export function serializePlainResult(table: Table): string {
  return stringifyJson(table.rows, 'The tool result');
}

/**
 * Compact JSON of an S2SP result, for the text content block.
 * @throws S2SPError `invalid_rows` when a value cannot be serialised
 */
export function serializeS2SPResult(result: S2SPResult): string {
  return stringifyJson(result, 'The S2SP result');
}
