/**
 * The relay for 2026-07-28 clients. That revision has no requests from a server to its client:
 * a handler that needs input returns an `input_required` result (the requests, and an opaque
 * `requestState`), and the client answers them by calling again with `inputResponses` and the
 * same `requestState` (SDK v2's client does this by itself with its handlers). The upstream is a
 * 2025-era connection and pushes its requests in the middle of a call, so the proxy keeps the
 * upstream call running across the rounds:
 *
 * 1. A `tools/call` (`prompts/get`, `resources/read`) is forwarded as usual. If the upstream asks
 *    the client something before it answers, the proxy answers the round with `input_required`:
 *    the upstream's requests, and a `requestState` naming the call in flight (256 random bits).
 * 2. The client's retry carries the answers: each goes to the upstream request it answers, and
 *    the proxy waits again for the upstream's result or its next requests.
 *
 * A call in flight is known only to the client that started it (its `clientKey`), lives at most
 * the relay's time limit between rounds (then the upstream call is cancelled), and there are at
 * most {@link MAX_CALLS_IN_ROUNDS} at once, {@link MAX_CALLS_IN_ROUNDS_PER_CLIENT} of one client (so
 * that one client's calls cannot leave another's none).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { ClientCapabilities, Request } from '../mcp-sdk.js';
import { RELAY_ERROR, type RelayTarget, relayError, relayScope } from '../upstream/client-relay.js';

/** Calls waiting for their clients' next round, at most. */
export const MAX_CALLS_IN_ROUNDS = 256;

/** Calls of one client waiting for its next round, at most. */
export const MAX_CALLS_IN_ROUNDS_PER_CLIENT = 32;

/** SDK v2's handler context, as far as the rounds need it. */
export interface ModernCall {
  readonly mcpReq?: {
    readonly signal?: AbortSignal;
    readonly inputResponses?: Record<string, unknown>;
    readonly requestState?: () => unknown;
  };
}

/** Options for {@link createInputRounds}. */
export interface InputRoundsOptions {
  /** How long a call waits for the client's next round, in ms. */
  readonly timeoutMs: number;
}

/** Runs the handlers of 2026-07-28 requests that may need the client's input. */
export interface InputRounds {
  /**
   * Answers one round of a request: a fresh one runs `handler` (with the relay reaching its
   * client); a retry carrying a `requestState` of ours hands its answers on. Either way, the
   * result is the upstream's answer or the next `input_required` round.
   *
   * @param call - the request's handler context
   * @param client - the caller's `clientKey`
   * @param capabilities - what the client declared in this request
   * @param handler - the request's handler, given a context whose signal lives across rounds
   */
  run(
    call: ModernCall,
    client: string,
    capabilities: ClientCapabilities | undefined,
    handler: (call: ModernCall) => Promise<object>,
  ): Promise<object>;
  /** Calls waiting for a round now. */
  size(): number;
  /** Cancels every call waiting for a round. */
  close(): void;
}

interface Asked {
  readonly request: Request;
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (error: unknown) => void;
}

interface InFlight {
  readonly client: string;
  /** The handler's outcome. */
  readonly outcome: Promise<{ ok: object } | { error: unknown }>;
  /** Requests the upstream made that the client has not been sent yet. */
  readonly pending: Map<string, Asked>;
  /** Requests sent in the last round, waiting for the client's answers. */
  readonly sent: Map<string, Asked>;
  /** Wakes the round waiting for something to answer. */
  wake: () => void;
  readonly controller: AbortController;
  timer?: NodeJS.Timeout;
  next: number;
}

/**
 * Creates the rounds of the proxy's 2026-07-28 requests.
 *
 * @param options - how long a call waits for the client's next round
 */
export function createInputRounds(options: InputRoundsOptions): InputRounds {
  const calls = new Map<string, InFlight>();

  const forget = (state: string, call: InFlight, reason: string) => {
    if (calls.get(state) !== call) return;
    calls.delete(state);
    clearTimeout(call.timer);
    const error = relayError(RELAY_ERROR.timeout, reason);
    for (const asked of [...call.pending.values(), ...call.sent.values()]) asked.reject(error);
    call.controller.abort(error);
  };

  /** Waits for the handler's answer or the upstream's next requests, and answers the round. */
  const round = async (
    state: string,
    call: InFlight,
    signal: AbortSignal | undefined,
  ): Promise<object> => {
    clearTimeout(call.timer);
    // While the client waits for this round, its cancelling the request cancels the call.
    const cancel = () => forget(state, call, 'The client cancelled the request.');
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await answerRound(state, call);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };

  const answerRound = async (state: string, call: InFlight): Promise<object> => {
    const asked = new Promise<void>((resolve) => {
      call.wake = resolve;
      if (call.pending.size > 0) resolve();
    });
    const first = await Promise.race([call.outcome, asked.then(() => undefined)]);
    if (first !== undefined) {
      calls.delete(state);
      if ('error' in first) throw first.error;
      return first.ok;
    }
    const inputRequests: Record<string, Request> = {};
    for (const [key, value] of call.pending) {
      inputRequests[key] = { method: value.request.method, params: value.request.params ?? {} };
      call.sent.set(key, value);
    }
    call.pending.clear();
    call.timer = setTimeout(
      () =>
        forget(
          state,
          call,
          `The client did not call again with its answers within ${Math.round(options.timeoutMs / 1000)} s (s2sp-proxy's limit, --timeout).`,
        ),
      options.timeoutMs,
    );
    call.timer.unref?.();
    return { resultType: 'input_required', inputRequests, requestState: state };
  };

  return {
    async run(request, client, capabilities, handler) {
      const echoed = request.mcpReq?.requestState?.();
      if (typeof echoed === 'string') {
        const call = calls.get(echoed);
        // Another client's state, or one that ended: nothing is resumed (and nothing told).
        if (!call || call.client !== client) {
          throw relayError(
            -32602,
            'Invalid or expired requestState: the call it continued has ended. Call again without it.',
          );
        }
        const answers = request.mcpReq?.inputResponses ?? {};
        for (const [key, asked] of call.sent) {
          if (key in answers) asked.resolve(answers[key] as Record<string, unknown>);
          else
            asked.reject(
              relayError(
                RELAY_ERROR.invalidRequest,
                `The client did not answer ${asked.request.method}.`,
              ),
            );
        }
        call.sent.clear();
        return round(echoed, call, request.mcpReq?.signal);
      }
      let ofClient = 0;
      for (const call of calls.values()) if (call.client === client) ofClient++;
      const limit =
        ofClient >= MAX_CALLS_IN_ROUNDS_PER_CLIENT
          ? `${MAX_CALLS_IN_ROUNDS_PER_CLIENT} calls of this client`
          : calls.size >= MAX_CALLS_IN_ROUNDS
            ? `${MAX_CALLS_IN_ROUNDS} calls`
            : undefined;
      if (limit !== undefined) {
        // No room to keep another call across rounds: it runs, and what the upstream asks its
        // client is refused.
        const full: RelayTarget = {
          client,
          capabilities: () => capabilities,
          send: () =>
            Promise.reject(
              relayError(
                RELAY_ERROR.busy,
                `s2sp-proxy already keeps ${limit} waiting for answers (its limit). Finish without this one, or try again later.`,
              ),
            ),
        };
        return relayScope.run(full, () => handler(request));
      }
      const state = randomBytes(32).toString('base64url');
      const controller = new AbortController();
      const call: InFlight = {
        client,
        pending: new Map(),
        sent: new Map(),
        wake: () => {},
        controller,
        next: 0,
        outcome: Promise.resolve({ ok: {} }),
      };
      const target: RelayTarget = {
        client,
        capabilities: () => capabilities,
        send: (asked, { signal }) =>
          new Promise((resolve, reject) => {
            const key = `s2sp-${call.next++}`;
            call.pending.set(key, { request: asked, resolve, reject });
            signal.addEventListener('abort', () => {
              call.pending.delete(key);
              call.sent.delete(key);
              reject(signal.reason);
            });
            call.wake();
          }),
      };
      // The call lives on after its first request's round: it ends when it is answered, cancelled
      // by the client (the signal of the request waiting for a round) or forgotten.
      const own: ModernCall = {
        ...request,
        mcpReq: { ...request.mcpReq, signal: controller.signal },
      };
      (call as { outcome: InFlight['outcome'] }).outcome = relayScope
        .run(target, () => handler(own))
        .then(
          (ok) => ({ ok }),
          (error: unknown) => ({ error }),
        );
      calls.set(state, call);
      return round(state, call, request.mcpReq?.signal);
    },
    size: () => calls.size,
    close() {
      for (const [state, call] of calls) forget(state, call, 's2sp-proxy is shutting down.');
    },
  };
}
