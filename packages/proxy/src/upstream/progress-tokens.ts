/**
 * Progress tokens the proxy mints for the requests it sends upstream. The SDK client names a
 * request's progress token after its message id (0, 1, 2 …) and hands a progress notification
 * to whichever request has that id: over the one upstream connection every downstream session
 * shares, an upstream (or a tool one session calls) that sends progress for small numbers reaches
 * the requests of other sessions. So, on the way out, each request's token becomes a random
 * one of 128 bits, known only to that request; on the way in, a progress notification for a
 * token the proxy minted goes back to the SDK under the request's own token, and any other is
 * dropped. The SDK's own routing (and its time limit reset by progress) then works as before,
 * with tokens nobody can guess.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import type { JSONRPCMessage, Transport } from '../mcp-sdk.js';

type Message = Record<string, unknown> & { params?: Record<string, unknown> };
type Token = string | number;

const PROGRESS = 'notifications/progress';
const CANCELLED = 'notifications/cancelled';

/** The request's token, if a progress token is in its `_meta`. */
function progressTokenOf(message: Message): Token | undefined {
  const meta = message.params?._meta as { progressToken?: unknown } | undefined;
  const token = meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** A request with `token` as its progress token (in its `_meta`). */
function askingProgress(request: Message, token: Token): JSONRPCMessage {
  const params = request.params ?? {};
  return {
    ...request,
    params: { ...params, _meta: { ...(params._meta as object), progressToken: token } },
  } as unknown as JSONRPCMessage;
}

/** A progress notification for `token`. */
function progressFor(notification: Message, token: Token): JSONRPCMessage {
  return {
    ...notification,
    params: { ...notification.params, progressToken: token },
  } as unknown as JSONRPCMessage;
}

/**
 * Makes `transport` mint the progress tokens of the requests sent through it (in place: its
 * `send` and `onmessage` are wrapped, before the SDK client connects it).
 *
 * @param onDropped - called for each progress notification dropped (its token was not minted
 *   for a request in flight)
 * @returns how many minted tokens are live (for tests)
 */
export function mintProgressTokens(transport: Transport, onDropped: () => void): () => number {
  // Minted token → the SDK's own token, and request id → minted token (to forget it).
  const byMinted = new Map<string, Token>();
  const byRequest = new Map<Token, string>();
  /** Forgets the token of request `id`; true when it had one. */
  const forget = (id: unknown): boolean => {
    if (typeof id !== 'string' && typeof id !== 'number') return false;
    const minted = byRequest.get(id);
    if (minted === undefined) return false;
    byRequest.delete(id);
    byMinted.delete(minted);
    return true;
  };

  const send = transport.send.bind(transport);
  transport.send = (outgoing, options) => {
    const message = outgoing as unknown as Message;
    if (message.method === CANCELLED) forget(message.params?.requestId);
    const own =
      message.id !== undefined && message.method !== undefined
        ? progressTokenOf(message)
        : undefined;
    if (own === undefined) return send(outgoing, options);
    const minted = randomBytes(16).toString('base64url');
    byMinted.set(minted, own);
    byRequest.set(message.id as Token, minted);
    return send(askingProgress(message, minted), options);
  };

  let handler: Transport['onmessage'];
  const deliver: NonNullable<Transport['onmessage']> = (incoming, extra) => {
    const message = incoming as unknown as Message;
    if (message.method === PROGRESS) {
      const token = message.params?.progressToken;
      const own = typeof token === 'string' ? byMinted.get(token) : undefined;
      if (own === undefined) {
        onDropped();
        return;
      }
      handler?.(progressFor(message, own), extra);
      return;
    }
    // An answer ends its request: its token is no longer live.
    if (message.method === undefined && message.id !== undefined && forget(message.id)) {
      // The SDK runs a notification's handler a microtask later but takes an answer at once: the
      // request's last progress, read together with its answer, would find the request gone.
      // The answer of a request that asked for progress waits for the loop's next turn.
      setImmediate(() => handler?.(incoming, extra));
      return;
    }
    handler?.(incoming, extra);
  };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (handler ? deliver : undefined),
    set: (next: Transport['onmessage']) => {
      handler = next;
    },
  });
  return () => byMinted.size;
}
