/**
 * The constants of the S2SP wire contract (PROTOCOL.md), in one frozen object so that every
 * package, app and peer reads the same names, paths and limits.
 *
 * @module
 */

/**
 * The constants of the wire contract.
 *
 * @example
 * ```ts
 * import { PROTOCOL } from '@s2sp/core';
 * app.post(`${PROTOCOL.dataPathPrefix}:token`, handler); // POST /s2sp/data/:token
 * ```
 */
export const PROTOCOL = Object.freeze({
  /** The version of this wire contract a server declares (§7.7). */
  version: '0.2',
  /** The key of `capabilities.experimental` under which a server declares S2SP (§7.7). */
  capabilityKey: 's2sp',
  /**
   * The extension identifier under which a server declares S2SP in `capabilities.extensions`, the
   * 2026-07-28 way (§7.7): reverse-DNS of the project's GitHub namespace, then the extension's name.
   */
  extensionId: 'io.github.s2sp/s2sp',
  /** Path prefix of the data plane; a token follows it (§3). */
  dataPathPrefix: '/s2sp/data/',
  /** Path of the data plane's health check (§3). */
  healthPath: '/s2sp/health',
  /**
   * The scheme of sync-mode handles (§5): agent-local references to body rows held by the agent's
   * S2SP layer. A data plane never serves them; a consumer receives them only when no S2SP layer
   * sat in the agent to swap them for `body_data`.
   */
  ddiScheme: 'ddi://',
  /** The reserved row-id column (§1). */
  rowId: '_row_id',
  /** Default lifetime of a `resource_url` in seconds: 10 minutes (§3). */
  defaultTtlSeconds: 600,
  /** Reserved names a resource tool adds to its input schema (§2). */
  resourceToolParameters: Object.freeze(['abstract_domains', 'mode']) as readonly string[],
  /** Parameter names a consumer tool adds to its input schema (§4). */
  consumerToolParameters: Object.freeze([
    'abstract_data',
    'resource_url',
    'body_data',
    'column_mapping',
  ]) as readonly string[],
  /**
   * Most distinct `row_ids` a data plane takes in one request by default (§3 limits). Consumers
   * that need more rows request the whole table (`{}`) and select locally, so a large hand-off
   * works against any data plane that keeps the default.
   */
  maxRequestRowIds: 10_000,
  /** The media type of the NDJSON response format (§7): one JSON object per line. */
  ndjsonMediaType: 'application/x-ndjson',
  /** Response header of an NDJSON body: the number of rows it holds (§7). */
  totalRowsHeader: 's2sp-total-rows',
  /** The `_meta` key under which a tool error carries its stable S2SP error code (§7). */
  errorCodeMeta: 's2sp/error-code',
  /** The `_meta` key under which an S2SP result carries its savings receipt (§7.9). */
  receiptMeta: 's2sp/receipt',
  /**
   * The `tools/call` request `_meta` key by which a host declares the encoding it reads (§7.5):
   * one of {@link PROTOCOL.abstractEncodings}. A server ignores any other value.
   */
  abstractEncodingMeta: 'io.github.s2sp/abstract-encoding',
  /**
   * The encodings of an async result's text (§7.5): `json` (§2, every reader's) and `compact` (a
   * header row, then value rows).
   */
  abstractEncodings: Object.freeze(['json', 'compact'] as const),
  /**
   * The `tools/call` request `_meta` key by which a host declares where it reads a sync result's
   * body (§7.11): one of {@link PROTOCOL.syncBodyPlaces}. A server ignores any other value.
   */
  syncBodyMeta: 'io.github.s2sp/sync-body',
  /**
   * Where a sync result carries its body (§7.11): `both` (§2: in the text and in
   * `structuredContent`) and `structured` (in `structuredContent` only; the text is the result
   * without `body`, what the model reads).
   */
  syncBodyPlaces: Object.freeze(['both', 'structured'] as const),
  /**
   * The tool `_meta` key, set to `true`, by which a host that defers tools behind a tool search
   * (the Claude Agent SDK) lists a tool to the model from the first turn. Not S2SP's own key:
   * servers and the proxy set it on S2SP's tools only when told to (`alwaysLoad…` options).
   */
  alwaysLoadMeta: 'anthropic/alwaysLoad',
  /**
   * Request header of a retry-safe redemption (§7 extension, see `packages/core/PROTOCOL.md`
   * §7.10): a random value of at least 128 bits the consumer chooses, so that for a short grace
   * window it, and only it, can redeem the same token with the same request again after a dropped
   * reply. Peers without the extension ignore it.
   */
  idempotencyKeyHeader: 'idempotency-key',
});
