/**
 * The one error type of S2SP. Every failure that a caller may want to handle carries a stable
 * string {@link S2SPErrorCode}; messages are for people and LLMs and may change between releases.
 *
 * @module
 */

/**
 * Stable error codes. The lowercase names are also the `error.code` values on the data-plane wire
 * (PROTOCOL §3), so a code means the same thing in a log line, a thrown error and an HTTP body.
 */
export type S2SPErrorCode =
  /** The caller sent something malformed: bad JSON, wrong types, unknown columns, a bad URL. */
  | 'invalid_request'
  /** Credentials are missing or wrong (bearer tokens on /mcp, SLOP and A2S). */
  | 'unauthorized'
  /** Credentials are valid but lack the permission (SLOP scopes), or a browser request from
   * another site or an unrecognised `Host` (DNS rebinding). */
  | 'forbidden'
  /** Unknown, expired and already-used tokens alike (no oracle between them). */
  | 'not_found'
  /** The data plane only answers POST on `/s2sp/data/{token}` and GET on `/s2sp/health`. */
  | 'method_not_allowed'
  /** A request or response body is larger than the configured limit. */
  | 'payload_too_large'
  /** The data plane only accepts `application/json`. */
  | 'unsupported_media_type'
  /** The request body did not arrive within the read timeout (a slow or stalled client). */
  | 'request_timeout'
  /** A resource tool's handler returned something that is not a table of JSON objects. */
  | 'invalid_rows'
  /** The body store has no room for a new entry; live entries are never evicted to make room. */
  | 'store_full'
  /** A backing service (such as Redis) cannot be reached right now; retrying later may work. */
  | 'unavailable'
  /** A resource server answered a data-plane fetch with something unusable. */
  | 'upstream_error'
  /** A tool's own handler failed; its message is the tool author's. */
  | 'tool_error'
  /** A data-plane fetch did not complete within its time limit. */
  | 'timeout'
  /** A factory or function was given options that cannot work (a programming error). */
  | 'invalid_config'
  /** Anything else. Its message is never sent over the wire. */
  | 'internal';

/**
 * The single code → HTTP status table. The Hono edge in `@s2sp/server` renders every error through
 * it, so no handler picks a status on its own. It lives in core because the wire error body
 * (`{"error":{code,message,status}}`) is part of the protocol and is built here.
 */
export const S2SP_ERROR_STATUS: Readonly<Record<S2SPErrorCode, number>> = Object.freeze({
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_timeout: 408,
  invalid_rows: 500,
  store_full: 507,
  unavailable: 503,
  upstream_error: 502,
  tool_error: 500,
  timeout: 504,
  invalid_config: 500,
  internal: 500,
});

// A registry symbol rather than `instanceof`: server, client and cache packages may each load
// their own copy of @s2sp/core, and an error thrown by one copy must be recognised by another.
const MARKER = Symbol.for('s2sp.error');

/** Options for {@link S2SPError}. */
export interface S2SPErrorOptions {
  /** The underlying error, kept for logs; never serialised onto the wire. */
  cause?: unknown;
  /** Structured details (for example the unknown and available column names). */
  data?: Readonly<Record<string, unknown>>;
}

/**
 * An S2SP failure with a stable {@link S2SPErrorCode}.
 *
 * @example
 * ```ts
 * try {
 *   parseAbstractDomains(42);
 * } catch (error) {
 *   if (S2SPError.isInstance(error) && error.code === 'invalid_request') console.log(error.message);
 * }
 * ```
 */
export class S2SPError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through `MARKER in error` by isInstance.
  private readonly [MARKER] = true;

  /** Stable machine-readable code. */
  readonly code: S2SPErrorCode;
  /** Structured details, if any. */
  readonly data: Readonly<Record<string, unknown>> | undefined;

  /**
   * @param code - the stable code
   * @param message - a sentence that tells a person or an LLM what went wrong and what to do next
   * @param options - cause and structured data
   */
  constructor(code: S2SPErrorCode, message: string, options: S2SPErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'S2SPError';
    this.code = code;
    this.data = options.data;
  }

  /** The HTTP status for this error's code. */
  get status(): number {
    return S2SP_ERROR_STATUS[this.code];
  }

  /**
   * The stable code of any thrown value: an `S2SPError`'s own code, else `tool_error` (a tool
   * author's own error, whose message is theirs).
   *
   * @param error - whatever was thrown
   */
  static codeOf(error: unknown): S2SPErrorCode {
    return S2SPError.isInstance(error) ? error.code : 'tool_error';
  }

  /**
   * True for any `S2SPError`, including one created by another copy of this package.
   *
   * @param error - any value
   */
  static isInstance(error: unknown): error is S2SPError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
