/**
 * What `s2sp-proxy` tells the person who started it when its upstream could not start: the
 * facts, and the setting to change. (The error's own message is written for a model, for a
 * client's session that fails on its first request; at start there is no model, only the
 * operator reading standard error.)
 *
 * @module
 */
import { startFailureOf } from '../upstream/start-failures.js';

/**
 * The text for a person of an upstream start failure, or undefined for any other error.
 *
 * @param error - what the proxy's `start()` threw
 */
export function startFailureText(error: unknown): string | undefined {
  const failure = startFailureOf(error);
  if (!failure) return undefined;
  const output = failure.stderr ? `\nIts last output on standard error:\n${failure.stderr}` : '';
  if (failure.timedOut) {
    return `The upstream MCP server ${failure.label} did not complete MCP initialisation within ${failure.limitSeconds} s; it was stopped.${output}\nIf it is only slow to start (a first npx run downloads and compiles), raise the limit: --startup-timeout <seconds> (config key startupTimeoutSeconds). Else check that it runs on its own.`;
  }
  return `The upstream MCP server ${failure.label} did not complete MCP initialisation (it said: ${failure.said}).${output}\nCheck that it runs on its own with the same command, URL and credentials.`;
}
