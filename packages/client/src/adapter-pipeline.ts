/**
 * The pipeline every `withS2SP` adapter runs around a tool call: find out, only when the call
 * carries a `ddi://` handle, which server it goes to, let the dispatcher rewrite the arguments,
 * and turn its refusal into a tool error the model reads. The adapters differ only in where their
 * framework keeps a server's capabilities and how it hands over calls and results.
 *
 * @module
 */
import { S2SPError, type ToolErrorResult, toolErrorResult } from '@s2sp/core';

import { carriesHandle, type S2SPDispatcher, type S2SPToolServer } from './dispatcher.js';

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

/**
 * The framework's own object with some methods replaced, for an adapter to hand back in its
 * place: a proxy whose `overrides` stand for the methods of those names — only where the object
 * has such a method, since frameworks test for optional methods to choose a path — and whose other
 * methods run on the real object, so its private fields (`#…`) keep working.
 *
 * @param target - the framework's object
 * @param overrides - replacement methods by name
 */
export function withMethods<T extends object>(
  target: T,
  overrides: Readonly<Record<string, (...args: never[]) => unknown>>,
): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      if (typeof property === 'string' && Object.hasOwn(overrides, property))
        return overrides[property];
      return value.bind(object);
    },
  });
}
