import { S2SPError, type ToolErrorResult, toolErrorResult } from '@s2sp/core';

import { carriesHandle, S2SPDispatcher, type S2SPToolServer } from './dispatcher.js';

/** Options every `withS2SP` adapter takes. */
export interface WithS2SPOptions {
  /**
   * The dispatcher whose buffer holds sync-mode bodies. Use one per agent and pass it to every
   * `withS2SP` call of that agent, so a handle from one MCP server's tool can be redeemed by
   * another server's tool. Default: a new one per call.
   */
  readonly dispatcher?: S2SPDispatcher;
}

/** The dispatcher an adapter uses: the shared one, or a fresh one. */
export function dispatcherOf(options: WithS2SPOptions | undefined): S2SPDispatcher {
  return options?.dispatcher ?? new S2SPDispatcher();
}

/**
 * Reads a server's MCP capabilities for one call: the capabilities it sent at initialisation, or
 * `undefined` when it sent none. Throws an `S2SPError` when it cannot find out.
 */
export type CapabilitiesReader = () => unknown | Promise<unknown>;

/**
 * The server a call goes to, for `dispatcher.onToolCall`. The reader runs only when the call
 * carries a `ddi://` handle, the only time the dispatcher looks; its failure is thrown from the
 * `capabilities` getter, so the dispatcher refuses the call with it (and reports it).
 */
export async function toolServerFor(
  args: Record<string, unknown>,
  read: CapabilitiesReader,
): Promise<S2SPToolServer> {
  if (!carriesHandle(args)) return { capabilities: undefined };
  let outcome: { value: unknown } | { error: unknown };
  try {
    outcome = { value: await read() };
  } catch (error) {
    outcome = { error };
  }
  return {
    get capabilities(): unknown {
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    },
  };
}

/**
 * Runs `dispatcher.onToolCall` for a call to the server whose capabilities `read` gives, turning
 * an S2SP error (a stale handle, a server without the consumer role) into a tool error result the
 * model can read and act on; other errors propagate.
 */
export async function rewriteCall(
  dispatcher: S2SPDispatcher,
  name: string,
  args: Record<string, unknown>,
  read: CapabilitiesReader,
): Promise<{ args: Record<string, unknown> } | { error: ToolErrorResult }> {
  try {
    return { args: dispatcher.onToolCall(name, args, await toolServerFor(args, read)) };
  } catch (error) {
    if (S2SPError.isInstance(error)) return { error: toolErrorResult(error) };
    throw error;
  }
}
