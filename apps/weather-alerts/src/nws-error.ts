/**
 * Failures talking to the NWS API, and the API's `application/problem+json` error bodies
 * (RFC 9457: `{"type","title","status","detail"}`, plus NWS's `parameterErrors`).
 *
 * @module
 */

/** What went wrong, so callers can word their own message (a 404 means different things). */
export type NwsErrorKind =
  /** NWS answered with an error status (see `status`, `title`, `detail`). */
  | 'http'
  /** No answer within the timeout. */
  | 'timeout'
  /** The connection failed (DNS, refused, reset). */
  | 'network'
  /** NWS answered 200 with something that is not the JSON expected. */
  | 'invalid_response'
  /** A link in an NWS response points somewhere this client will not follow. */
  | 'forbidden_link';

/** One entry of NWS's `parameterErrors`: which query parameter was wrong and why. */
export interface NwsParameterError {
  readonly parameter: string;
  readonly message: string;
}

/** The fields of an NWS problem document this app reads. */
export interface NwsProblem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly parameterErrors?: readonly NwsParameterError[];
}

/** Options for {@link NwsError}. */
export interface NwsErrorOptions {
  readonly status?: number;
  readonly problem?: NwsProblem;
  readonly cause?: unknown;
}

/**
 * A failed NWS request. The message is complete on its own (it names the request and what NWS
 * said); tools may replace it with one that fits their context, using the fields.
 */
export class NwsError extends Error {
  override readonly name = 'NwsError';
  /** What went wrong. */
  readonly kind: NwsErrorKind;
  /** The HTTP status, for `http` errors. */
  readonly status: number | undefined;
  /** The parsed problem document, when NWS sent one. */
  readonly problem: NwsProblem | undefined;

  constructor(kind: NwsErrorKind, message: string, options: NwsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.problem = options.problem;
  }
}

function text(value: unknown, max = 500): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return trimmed.length > max ? `${trimmed.slice(0, max)}…` : trimmed;
}

/**
 * Reads an NWS problem document. Anything that is not one (HTML from a proxy, an empty body)
 * gives `undefined`; strings are trimmed and bounded so that a hostile body cannot flood a tool
 * result.
 */
export function parseProblem(body: string): NwsProblem | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const record = json as Record<string, unknown>;
  const parameterErrors = Array.isArray(record.parameterErrors)
    ? record.parameterErrors.slice(0, 10).flatMap((entry: unknown) => {
        if (typeof entry !== 'object' || entry === null) return [];
        const { parameter, message } = entry as Record<string, unknown>;
        const name = text(parameter, 100);
        const why = text(message);
        return name && why ? [{ parameter: name, message: why }] : [];
      })
    : [];
  const type = text(record.type, 200);
  const title = text(record.title, 200);
  const detail = text(record.detail);
  const status = typeof record.status === 'number' ? record.status : undefined;
  if (!title && !detail && parameterErrors.length === 0) return undefined;
  return {
    ...(type && { type }),
    ...(title && { title }),
    ...(status !== undefined && { status }),
    ...(detail && { detail }),
    ...(parameterErrors.length > 0 && { parameterErrors }),
  };
}

/**
 * What NWS said, in one sentence: the detail (or title), then each parameter error.
 * `"Bad Request: area: Does not have a value in the enumeration"`.
 */
export function describeProblem(problem: NwsProblem | undefined, fallback: string): string {
  if (!problem) return fallback;
  let said = problem.detail ?? problem.title ?? fallback;
  if (problem.title && problem.detail && !problem.detail.includes(problem.title)) {
    said = `${problem.title}: ${problem.detail}`;
  }
  for (const error of problem.parameterErrors ?? []) {
    said += `; ${error.parameter}: ${error.message}`;
  }
  return said;
}
