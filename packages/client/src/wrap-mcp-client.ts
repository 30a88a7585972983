import { S2SPError } from '@s2sp/core';
import { toolErrorResult } from '@s2sp/core/internal';
import { S2SPDispatcher } from './dispatcher.js';

/** The part of the MCP SDK `Client` this wrapper touches. */
export interface CallToolCapable {
  callTool(
    params: { name: string; arguments?: Record<string, unknown> } & Record<string, unknown>,
    ...rest: never[]
  ): Promise<unknown>;
}

/** Options for {@link wrapMcpClient}. */
export interface WrapMcpClientOptions {
  /** The dispatcher to use; share one across the clients of one agent so handles travel. */
  readonly dispatcher?: S2SPDispatcher;
}

/**
 * Makes an official MCP SDK `Client` apply S2SP's sync-mode rewrites on every `callTool`: sync
 * bodies are buffered in the agent process (never returned to your LLM code) and `ddi://`
 * handles become `body_data` on the way to consumer tools. The result is the same client (a
 * proxy), so code that already uses the SDK changes one line.
 *
 * A bad handle comes back as an `isError` tool result with advice, like any tool error.
 *
 * @param client - a connected `Client` from `@modelcontextprotocol/sdk`
 * @param options - a shared dispatcher
 * @example
 * ```ts
 * const dispatcher = new S2SPDispatcher();
 * const weather = wrapMcpClient(weatherClient, { dispatcher });
 * const charts = wrapMcpClient(chartClient, { dispatcher });
 * ```
 */
export function wrapMcpClient<TClient extends CallToolCapable>(
  client: TClient,
  options: WrapMcpClientOptions = {},
): TClient {
  const dispatcher = options.dispatcher ?? new S2SPDispatcher();
  const callTool = async (
    params: { name: string; arguments?: Record<string, unknown> },
    ...rest: unknown[]
  ) => {
    let args: Record<string, unknown>;
    try {
      args = dispatcher.onToolCall(params.name, params.arguments ?? {});
    } catch (error) {
      if (S2SPError.isInstance(error)) return toolErrorResult(error);
      throw error;
    }
    const result = await (client.callTool as (...a: unknown[]) => Promise<unknown>).call(
      client,
      { ...params, arguments: args },
      ...rest,
    );
    return dispatcher.onToolResult(params.name, result);
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'callTool') return callTool;
      const value = Reflect.get(target, property, receiver);
      // Methods run on the real client, so its private fields (#...) keep working.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
