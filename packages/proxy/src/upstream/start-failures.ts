/**
 * An upstream session that could not start. Its error's message is the model-facing one (a
 * client's own upstream session fails on that client's request, and a model reads it); the facts
 * beside it are for the person who started the proxy, whom the CLI tells instead
 * (`cli/start-failure.ts`).
 *
 * @module
 */
import { S2SPError } from '@s2sp/core';
import { ifItPersists } from '@s2sp/core/advice';

/** Why an upstream session could not start, for the person who started the proxy. */
export interface StartFailure {
  /** The upstream's label (its command's name or its URL's origin). */
  readonly label: string;
  /** What the SDK or the upstream said, redacted. */
  readonly said: string;
  /** The child's last output on standard error (stdio), or empty. */
  readonly stderr: string;
  /** Whether the start-up limit passed (rather than the upstream failing). */
  readonly timedOut: boolean;
  /** The start-up limit, in seconds. */
  readonly limitSeconds: number;
}

// The start failures thrown, with their facts.
const startFailures = new WeakMap<object, StartFailure>();

/**
 * The error a session that could not start throws: `unavailable`, saying what the upstream said
 * and what to do, with `facts` kept for {@link startFailureOf}.
 *
 * @param facts - what is known of the failure
 * @param cause - what the SDK threw
 */
export function startFailure(facts: StartFailure, cause: unknown): S2SPError {
  const { label, said, stderr } = facts;
  const failure = new S2SPError(
    'unavailable',
    `The upstream MCP server ${label} did not complete MCP initialisation (it said: «${said}»).${stderr ? ` Its last output on standard error: «${stderr}».` : ''} ${ifItPersists(`the upstream MCP server ${label}`)}`,
    { cause },
  );
  startFailures.set(failure, facts);
  return failure;
}

/**
 * The facts of an error thrown by `Upstream.start` (the session could not start), or undefined
 * for any other error.
 *
 * @param error - what `start()` (or the proxy's `start()`) threw
 */
export function startFailureOf(error: unknown): StartFailure | undefined {
  return typeof error === 'object' && error !== null ? startFailures.get(error) : undefined;
}
