/**
 * The start-up limit of one connection attempt to the upstream (`--startup-timeout`), shared by
 * its era probe and its handshake: starting a server (`npx`, a JIT warm-up) may take longer than
 * one request may, so it has a limit of its own, counted once for both steps.
 *
 * @module
 */
import { ErrorCode, McpError } from '../mcp-sdk.js';

/** The start-up limit of one connection attempt. */
export interface StartDeadline {
  /** Milliseconds left (0 once it has passed). */
  left(): number;
  /** The SDK connect options that stop at the deadline (never a timeout of 0: "none"). */
  options(): { timeout: number; signal: AbortSignal };
  /** A timeout error for a failure that came because the deadline passed (an abort). */
  timedOut(error: unknown): unknown;
}

/**
 * Starts the clock of one connection attempt.
 *
 * @param ms - the start-up limit, in ms
 */
export function createStartDeadline(ms: number): StartDeadline {
  const at = Date.now() + ms;
  const left = () => Math.max(0, at - Date.now());
  return {
    left,
    options: () => ({
      timeout: Math.max(1, left()),
      signal: AbortSignal.timeout(Math.max(1, left())),
    }),
    timedOut: (error) =>
      error instanceof McpError && error.code === ErrorCode.RequestTimeout
        ? error
        : new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: ms }),
  };
}
