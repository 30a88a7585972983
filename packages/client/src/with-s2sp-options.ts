import { S2SPDispatcher } from './dispatcher.js';

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
