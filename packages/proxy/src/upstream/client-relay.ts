/**
 * Relaying the upstream's requests to a client (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`) to the one downstream client whose call caused them.
 *
 * The proxy is shared by many clients, so upstream it declares everything it can relay
 * ({@link RELAYED_CAPABILITIES}): the upstream lists the tools that need them (server-everything's
 * `trigger-sampling-request` vanishes for a client without sampling). Each request is then checked
 * against the capabilities of the client it is for: one that did not declare the capability is
 * refused with MCP's `-32021` (missing required client capability) and its `requiredCapabilities`,
 * so the upstream's tool can finish without it.
 *
 * Which client a request is for: the client that owns the upstream session it came on (each
 * client has its own: see `upstream-pool.ts`), reached through the downstream request it came
 * with (the Streamable HTTP response stream of a forwarded request), else as the session's owner
 * decides (`UpstreamOptions.unrelated`): its newest call in flight, else its 2025-era session's
 * own stream; a 2026-07-28 client with no request open cannot be reached, and the request is
 * refused (`-32600`). With one session shared by every client (`sharedUpstream`), a request that
 * nothing relates goes only to the sole connected client, else is refused.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { S2SPError } from '@s2sp/core';
import type { ClientCapabilities, Request } from '../mcp-sdk.js';
import type { GatewayParts } from '../tables/s2sp-call.js';

/**
 * What the proxy declares upstream: the union of what it can relay. Elicitation in both modes
 * (the client's own declaration is checked per request), roots with `listChanged` (a client's
 * `notifications/roots/list_changed` is passed on).
 */
export const RELAYED_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
} as const satisfies ClientCapabilities;

/** The client capability each relayed method needs. */
const NEEDS: Readonly<Record<string, keyof typeof RELAYED_CAPABILITIES>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** JSON-RPC codes of a refusal. */
export const RELAY_ERROR = {
  /** MCP's "missing required client capability" (2026-07-28; the only code MCP has for it). */
  missingCapability: -32021,
  invalidRequest: -32600,
  methodNotFound: -32601,
  /** The client has too many relayed requests running already. */
  busy: -32000,
  /** The client did not answer in time (the SDK's RequestTimeout). */
  timeout: -32001,
} as const;

/** Requests relayed to one client at once; one more waits, any beyond are refused. */
export const MAX_RELAYED_PER_CLIENT = 4;
const MAX_QUEUED_PER_CLIENT = 4;

/** One downstream request in flight, as the relay reaches its client. */
export interface RelayTarget {
  /** The client (`clientKey`), for the per-client cap. */
  readonly client: string;
  /** What the client declared (at `initialize`, or in the request's envelope); none if unknown. */
  capabilities(): ClientCapabilities | undefined;
  /**
   * Sends `request` to the client as part of the downstream request (2025: on its response
   * stream; 2026-07-28: as an `input_required` result of it) and resolves with the client's result.
   */
  send(
    request: Request,
    options: { readonly signal: AbortSignal; readonly timeoutMs: number },
  ): Promise<Record<string, unknown>>;
}

/**
 * The downstream request being handled now, set by the downstream server around each handler so
 * that what it forwards upstream carries it (see `upstream.ts`).
 */
export const relayScope = new AsyncLocalStorage<RelayTarget>();

/** An error the SDK sends as it is: `code`, `message`, `data` (an `McpError` would prefix the message). */
export function relayError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
}

/** Options for {@link createClientRelay}. */
export interface ClientRelayOptions {
  /** Time limit of one relayed request, in ms (a person may be answering an elicitation). */
  readonly timeoutMs: number;
  /** The servers' per-client limit (`GATEWAY_PARTS`): the relay's cap per client is one. */
  readonly createClientLimit: GatewayParts['createClientConcurrencyLimit'];
}

/** Relays one request from the upstream to `target` (none when it could not be told). */
export type ClientRelay = (
  request: Request,
  target: RelayTarget | undefined,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

/**
 * Creates the relay: method and capability checks, the per-client cap and the time limit.
 *
 * @param options - the time limit of one relayed request, and the per-client limit's factory
 */
export function createClientRelay(options: ClientRelayOptions): ClientRelay {
  const perClient = options.createClientLimit({
    concurrency: MAX_RELAYED_PER_CLIENT,
    queue: MAX_QUEUED_PER_CLIENT,
    what: 'requests relayed to this client',
  });
  return async (request, target, signal) => {
    const needs = NEEDS[request.method];
    if (needs === undefined) {
      throw relayError(
        RELAY_ERROR.methodNotFound,
        `s2sp-proxy relays only sampling/createMessage, elicitation/create and roots/list to its clients, not ${request.method.slice(0, 100)}.`,
      );
    }
    if (target === undefined) {
      throw relayError(
        RELAY_ERROR.invalidRequest,
        request.method === 'roots/list'
          ? 's2sp-proxy is shared by several MCP clients, and a roots/list sent on its own has no one client to answer it: keep the roots you have. (Sent with a tool call over Streamable HTTP, it reaches that call’s client.)'
          : `s2sp-proxy cannot tell which of its clients ${request.method} is for: send it while handling that client's request (a tool call), not on its own. The proxy relays a request only to the client whose request is in flight.`,
      );
    }
    const missing = missingCapability(request, target.capabilities());
    if (missing !== undefined) {
      throw relayError(
        RELAY_ERROR.missingCapability,
        `The MCP client behind s2sp-proxy that made this request did not declare the ${missing.name} capability, so ${request.method} cannot reach it. Finish without it (or tell the user to connect a client that supports ${missing.name}).`,
        { requiredCapabilities: missing.required },
      );
    }
    // The limit is kept here, whatever the target does with it: a client that never answers
    // frees its slot when it is up, and the client is told (the target's signal) to stop.
    const expired = new AbortController();
    const both = AbortSignal.any([signal, expired.signal]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          relayError(
            RELAY_ERROR.timeout,
            `The MCP client behind s2sp-proxy did not answer ${request.method} within ${Math.round(options.timeoutMs / 1000)} s (the proxy's limit, --timeout). Finish without its answer, or try again.`,
          ),
        );
        expired.abort();
      }, options.timeoutMs);
    });
    try {
      return await perClient.run(target.client, () =>
        Promise.race([
          target.send(request, { signal: both, timeoutMs: options.timeoutMs }),
          timedOut,
        ]),
      );
    } catch (error) {
      if (S2SPError.isInstance(error) && error.code === 'unavailable') {
        throw relayError(
          RELAY_ERROR.busy,
          `s2sp-proxy already relays ${MAX_RELAYED_PER_CLIENT} requests to this client (its limit). Send one at a time, after the previous one is answered.`,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The capability `request` needs that `declared` lacks, if any. */
function missingCapability(
  request: Request,
  declared: ClientCapabilities | undefined,
): { name: string; required: ClientCapabilities } | undefined {
  const needs = NEEDS[request.method] as keyof typeof RELAYED_CAPABILITIES;
  if (!declared?.[needs]) return { name: needs, required: { [needs]: {} } };
  if (needs !== 'elicitation') return undefined;
  // `elicitation: {}` is form mode only (MCP 2025-11-25); URL mode must be declared.
  const mode = (request.params as { mode?: unknown } | undefined)?.mode ?? 'form';
  const modes = declared.elicitation as { form?: object; url?: object };
  const supports = mode === 'url' ? modes.url : modes.form || !modes.url;
  return supports
    ? undefined
    : {
        name: `elicitation (${String(mode).slice(0, 20)} mode)`,
        required: { elicitation: { [String(mode) === 'url' ? 'url' : 'form']: {} } },
      };
}
