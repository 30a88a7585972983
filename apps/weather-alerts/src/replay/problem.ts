/**
 * NWS-style error responses: `application/problem+json` documents shaped like the ones
 * api.weather.gov sends, so that clients are tested against the real error format.
 *
 * @module
 */
import type { NwsParameterError } from '../nws-error.js';

/** The problem types NWS uses that the replay server can produce. */
export type ReplayProblemType = 'BadRequest' | 'NotFound' | 'InvalidPoint';

/** A problem to send. */
export interface ReplayProblem {
  readonly status: 400 | 404;
  readonly type: ReplayProblemType;
  readonly title: string;
  readonly detail: string;
  readonly parameterErrors?: readonly NwsParameterError[];
}

/**
 * Builds the response. `base` is the URL the replay is reached at (for `type` and `instance`,
 * as NWS links them to its own host).
 */
export function problemResponse(base: string, problem: ReplayProblem): Response {
  const correlationId = crypto.randomUUID().replaceAll('-', '').slice(0, 16);
  const body = {
    correlationId,
    ...(problem.parameterErrors && { parameterErrors: problem.parameterErrors }),
    title: problem.title,
    type: `${base}/problems/${problem.type}`,
    status: problem.status,
    detail: problem.detail,
    instance: `${base}/requests/${correlationId}`,
  };
  return new Response(JSON.stringify(body, null, 4), {
    status: problem.status,
    headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store' },
  });
}
