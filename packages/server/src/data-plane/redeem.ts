/**
 * One redemption (PROTOCOL §3), whatever serves it: the guards, the limits, the take and the
 * rendered answer, from the few parts of a request it reads. The Hono route and the Node front
 * door are both thin adapters over {@link createRedeem}, so no rule exists twice.
 *
 * @module
 */

import { isTokenShape, type Logger, PROTOCOL, S2SPError, tokenStorageKey } from '@s2sp/core';
import { askForFewerRowIds, resourceUrlGone } from '@s2sp/core/advice';
import type { z } from 'zod';
import { sendDataPlaneRequest, sendJson } from '../advice.js';
import { crossSiteReason, type HeaderGetter } from '../edge/browser-guard.js';
import { entryLabel } from '../logger.js';
import type { DataPlaneOptionsSchema } from './data-plane-options.js';
import {
  isJsonContentType,
  isJsonWhitespace,
  parseDataPlaneRequest,
  parseIdempotencyKey,
  requestedRowIds,
  retryDigest,
} from './request.js';
import { negotiateFormat, type RenderedBody, renderDataPlaneBody } from './response-body.js';

/** The data plane's options, checked and with their defaults, and a logger always. */
export type ResolvedDataPlaneOptions = Omit<z.output<typeof DataPlaneOptionsSchema>, 'logger'> & {
  readonly logger: Logger;
};

/** What a redemption reads of its request. */
export interface RedeemRequest {
  /** The token path segment, as routed (not yet checked). */
  readonly token: string;
  /** The request's headers by lower-case name. */
  readonly header: HeaderGetter;
  /**
   * Reads the body: its bytes, or `undefined` when it is over `maxBytes`; throws `request_timeout`
   * when it is not complete within `timeoutMs`. Called at most once, after the cross-site check.
   */
  readonly body: (maxBytes: number, timeoutMs: number) => Promise<Uint8Array | undefined>;
}

/** A redemption's 200 answer. */
export interface Redemption {
  /** Its headers, lower-case, in the order the route sets them. */
  readonly headers: Record<string, string>;
  /** Its body; `rendered.byteLength` is the `Content-Length`. */
  readonly rendered: RenderedBody;
  /**
   * Lets the store reuse the body's bytes (see `TakenRows.release`): for a writer that knows when
   * its response has been written out, as the Node front door does.
   */
  readonly release?: () => void;
}

/** Answers one data-plane request, or throws the `S2SPError` to answer instead. */
export type Redeem = (request: RedeemRequest) => Promise<Redemption>;

// One body for unknown, expired and used tokens alike, so a 404 says nothing about which.
const GONE = resourceUrlGone;

// ignoreBOM keeps a byte order mark in the text, where JSON.parse refuses it: a body of only
// U+FEFF must be a 400 that keeps the token, not an empty body that uses it. One decoder for all
// requests: without `stream` each decode starts afresh.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

async function readText(request: RedeemRequest, maxBytes: number, timeoutMs: number) {
  const bytes = await request.body(maxBytes, timeoutMs);
  if (!bytes) {
    throw new S2SPError(
      'payload_too_large',
      `The request body is larger than ${maxBytes} bytes. ${askForFewerRowIds}`,
    );
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new S2SPError(
      'invalid_request',
      `The request body is not valid UTF-8 JSON. ${sendDataPlaneRequest}`,
    );
  }
}

/**
 * The data plane's one redemption. A request is validated completely (cross-site, content type,
 * size, JSON, types, idempotency key) before its token is looked up, so a malformed request never
 * uses the token up.
 *
 * @param options - the checked options of `createDataPlaneApp` / `mountDataPlane`
 */
export function createRedeem(options: ResolvedDataPlaneOptions): Redeem {
  const { store, maxRequestBytes, bodyTimeoutMs, maxRowIds, retryGraceMs, logger, onTaken } =
    options;
  return async (input) => {
    // Consumers are servers. A browser page on another site must not be able to spend a token it
    // has seen (a no-cors POST needs no preflight), so its requests stop here, before the body.
    const crossSite = crossSiteReason(input.header, [], { ownOrigin: false });
    if (crossSite) throw new S2SPError('forbidden', crossSite);
    const contentType = input.header('content-type');
    const text = await readText(input, maxRequestBytes, bodyTimeoutMs);
    // An empty body counts as {} whatever its type (fetch labels an empty string text/plain);
    // anything else must be application/json, with charset=utf-8 at most (PROTOCOL §3).
    if (!isJsonWhitespace(text) && !isJsonContentType(contentType)) {
      throw new S2SPError(
        'unsupported_media_type',
        `The request body is not application/json. ${sendJson}`,
      );
    }
    const request = parseDataPlaneRequest(text);
    const idempotencyKey =
      retryGraceMs > 0
        ? parseIdempotencyKey(input.header(PROTOCOL.idempotencyKeyHeader))
        : undefined;
    const { token } = input;
    if (!isTokenShape(token)) throw new S2SPError('not_found', GONE);

    const started = Date.now();
    const key = await tokenStorageKey(token);
    const rowIds = requestedRowIds(request);
    if (rowIds && rowIds.length > maxRowIds) {
      throw new S2SPError(
        'invalid_request',
        `row_ids lists ${rowIds.length} distinct ids; this data plane takes at most ${maxRowIds}. ${askForFewerRowIds}`,
      );
    }
    const format = negotiateFormat(input.header('accept'));
    // A retry-safe redemption (PROTOCOL §7.10) is its own branch: without the header nothing
    // changes, not even the cost.
    const retry =
      idempotencyKey === undefined
        ? undefined
        : {
            key: await retryDigest(idempotencyKey, rowIds, request, format),
            graceMs: retryGraceMs,
          };
    const taken = await (retry ? store.take(key, rowIds, { retry }) : store.take(key, rowIds));
    if (!taken) {
      logger.debug('data plane: no entry', { entry: entryLabel(key) });
      throw new S2SPError('not_found', GONE);
    }
    if (retry) onTaken?.(key, retry.graceMs);
    else onTaken?.(key);
    const rendered = await renderDataPlaneBody(taken, request, format);
    logger.info('data plane: redeemed', {
      entry: entryLabel(key),
      tableRows: taken.tableRows,
      format,
      bytes: rendered.byteLength,
      ms: Date.now() - started,
    });
    const headers: Record<string, string> = {
      'content-type': rendered.contentType,
      'cache-control': 'no-store',
      vary: 'accept',
      'content-length': String(rendered.byteLength),
    };
    if (rendered.totalRows !== undefined)
      headers[PROTOCOL.totalRowsHeader] = String(rendered.totalRows);
    return { headers, rendered, ...(taken.release && { release: taken.release }) };
  };
}
