/**
 * A 2026-07-28 client's request as the upstream must see it. SDK v2's server lifts what a request
 * carries besides its params out of what a handler sees: the answers to an earlier
 * `input_required` round (`inputResponses`), the `requestState` to echo, and the `_meta`
 * envelope (the client's capabilities, its log level). In front of a 2026-07-28 upstream the
 * proxy puts them back, so that the upstream's rounds are the client's own, round for round:
 * its `inputRequests` keys, its `requestState` (which only the upstream can read or check), the
 * capabilities it may ask of this client. No round is kept in the proxy, so a client's retry may
 * reach any replica of it.
 *
 * @module
 */
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, type Request } from '../mcp-sdk.js';

/** What a 2026-07-28 client's request carries besides its params. */
export interface ClientRound {
  readonly inputResponses?: Record<string, unknown>;
  readonly requestState?: unknown;
  readonly envelope?: Record<string, unknown>;
}

/** SDK v2's handler context, as far as a round is read from it (SDK v1's has no `mcpReq`). */
export interface RoundCall {
  readonly mcpReq?: {
    readonly inputResponses?: Record<string, unknown>;
    readonly requestState?: () => unknown;
    readonly envelope?: Record<string, unknown>;
  };
}

/** The envelope keys of a client's request that the upstream must see as the client's own. */
const CLIENT_ENVELOPE_KEYS = [CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY] as const;

/**
 * The round of a 2026-07-28 request, read from its handler context; undefined for a 2025-era
 * request (a session's: SDK v1's context).
 *
 * @param call - the downstream request's handler context
 */
export function clientRoundOf(call: RoundCall): ClientRound | undefined {
  const req = call.mcpReq;
  if (req?.envelope === undefined) return undefined;
  const requestState = req.requestState?.();
  return {
    envelope: req.envelope,
    ...(req.inputResponses !== undefined && { inputResponses: req.inputResponses }),
    ...(requestState !== undefined && { requestState }),
  };
}

/**
 * `request` as its 2026-07-28 client sent it: its round's answers and state, and its
 * capabilities and log level in `_meta` (where they win over the proxy's own envelope, which SDK
 * v2's client adds under a request's own `_meta`).
 *
 * @param request - the request the proxy forwards
 * @param round - what the client's request carried besides its params
 */
export function withClientRound(request: Request, round: ClientRound): Request {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const envelope: Record<string, unknown> = {};
  for (const key of CLIENT_ENVELOPE_KEYS)
    if (round.envelope?.[key] !== undefined) envelope[key] = round.envelope[key];
  return {
    ...request,
    params: {
      ...params,
      ...(round.inputResponses !== undefined && { inputResponses: round.inputResponses }),
      ...(round.requestState !== undefined && { requestState: round.requestState }),
      _meta: { ...envelope, ...(params._meta as Record<string, unknown> | undefined) },
    },
  };
}
