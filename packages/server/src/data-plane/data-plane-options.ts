/**
 * The data plane's options, apart from the routes (`data-plane.ts`) so that the redeemer they
 * configure (`redeem.ts`) names them without importing the routes that create it.
 *
 * @module
 */

import { type Logger, PROTOCOL } from '@s2sp/core';
import { byteSize, milliseconds, positiveInteger } from '@s2sp/core/options';
import type { BodyStore } from '@s2sp/core/store';
import { z } from 'zod';
import { EdgeOptionsSchema, LoggerSchema } from '../edge/edge-options.js';
import { DEFAULT_MAX_REQUEST_BYTES } from './request.js';

/** Options for `createDataPlaneApp` and `mountDataPlane` (`data-plane.ts`). */
export interface DataPlaneOptions {
  /** Where async-mode tables wait for their redemption. */
  readonly store: BodyStore;
  /** Largest request body accepted, in bytes. Default 1 MiB; larger gets 413. */
  readonly maxRequestBytes?: number;
  /** Where redemptions are logged (never with tokens). Default: silent. */
  readonly logger?: Logger;
  /** Longest the request body may take to arrive, in ms; slower gets 408. Default 10 000. */
  readonly bodyTimeoutMs?: number;
  /**
   * Most distinct `row_ids` in one request. Default 10 000; more gets 400 `invalid_request`
   * without using the token. Bounds the work (and, on Redis, the script time) one request can
   * cause; the stores also refuse more ids than the table has rows.
   */
  readonly maxRowIds?: number;
  /**
   * Called with the storage key of every entry a request took (for per-client quotas); with
   * `graceMs` when the entry stays that long for repeats of a retry-safe redemption.
   */
  readonly onTaken?: (key: string, graceMs?: number) => void;
  /**
   * How long a redemption sent with an `Idempotency-Key` can be repeated by that consumer, with
   * that key and the same request (PROTOCOL §7.10), in ms. The entry stays in the store, counted
   * against its budgets, for that long after the first take. Default 60 000; 0 turns the
   * extension off (the header is then ignored, as by a peer without it).
   */
  readonly retryGraceMs?: number;
}

/** Default of {@link DataPlaneOptions.retryGraceMs}: 60 s. */
export const DEFAULT_RETRY_GRACE_MS = 60_000;

/** Default of {@link DataPlaneOptions.maxRowIds}. */
export const DEFAULT_MAX_ROW_IDS = PROTOCOL.maxRequestRowIds;

/**
 * The options of {@link createDataPlaneApp} and {@link mountDataPlane}. The body read timeout is
 * the HTTP edge's rule.
 */
export const DataPlaneOptionsSchema = z.object({
  store: z
    .custom<BodyStore>((value) => typeof value === 'object' && value !== null)
    .meta({
      allowed: 'a BodyStore',
    }),
  maxRequestBytes: byteSize().default(DEFAULT_MAX_REQUEST_BYTES),
  logger: LoggerSchema.optional(),
  bodyTimeoutMs: EdgeOptionsSchema.shape.requestBodyTimeoutMs,
  maxRowIds: positiveInteger().default(DEFAULT_MAX_ROW_IDS),
  onTaken: z
    .custom<(key: string, graceMs?: number) => void>((value) => typeof value === 'function')
    .optional(),
  retryGraceMs: milliseconds({ min: 0, max: 10 * 60_000 }).default(DEFAULT_RETRY_GRACE_MS),
} satisfies Record<keyof DataPlaneOptions, z.ZodType>);
