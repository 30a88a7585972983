import type { Context } from 'hono';
import { retryListenLater, useOpenListenStreams } from '../advice.js';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '../mcp-sdk.js';
import { MAX_LISTEN_STREAMS } from './edge-options.js';
import type { S2SPEdge } from './s2sp-edge.js';

/** The MCP 2026-07-28 leg of an MCP endpoint behind the edge (see {@link createModernMcp}). */
export interface ModernMcp {
  /**
   * Answers the request when it is a 2026-07-28 one, by the SDK's own classification (so that the
   * routing never disagrees with its entry); `undefined` for a 2025-era request, which the
   * endpoint serves its own way.
   *
   * @param c - the request, its body already read by `edge.readMcpBody`
   * @param parsedBody - that body
   */
  answer(c: Context, parsedBody: unknown): Promise<Response | undefined>;
  /** Publishes list changes and resource updates to the open `subscriptions/listen` streams. */
  readonly notify: McpHttpHandler['notify'];
  /** Ends the in-flight 2026-07-28 exchanges and their listen streams. */
  close(): Promise<void>;
}

/**
 * The JSON-RPC error code of a listen stream refused by a cap: MCP's implementation-defined
 * server error. `error.data.code` says which S2SP code it is (`unavailable`, PROTOCOL §3).
 */
export const LISTEN_REFUSED_CODE = -32000;

/** A `subscriptions/listen` request's id, or `undefined` for any other body. */
function listenRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (method !== 'subscriptions/listen') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * The refusal of a listen stream over a cap, in band as the SDK answers its own limit (HTTP 200,
 * the JSON-RPC error of the listen request), so that a client handles it as that request's error.
 */
function listenRefused(
  id: string | number,
  message: string,
  data: { readonly limit: number; readonly scope: 'client' | 'server' },
): Response {
  return Response.json({
    jsonrpc: '2.0',
    id,
    error: { code: LISTEN_REFUSED_CODE, message, data: { code: 'unavailable', ...data } },
  });
}

/** Open listen streams, by caller and in all, counted from before the SDK sees the request. */
interface ListenSlots {
  readonly open: Map<string, number>;
  total: number;
}

// The caps are the edge's: every 2026-07-28 leg mounted behind one edge (a gateway keeps one per
// client, so that each client's listen streams hear only its own news) counts against them.
const listenSlots = new WeakMap<S2SPEdge, ListenSlots>();
const listenSlotsOf = (edge: S2SPEdge): ListenSlots => {
  let slots = listenSlots.get(edge);
  if (!slots) {
    slots = { open: new Map(), total: 0 };
    listenSlots.set(edge, slots);
  }
  return slots;
};

/**
 * The 2026-07-28 leg of an MCP endpoint: SDK v2's `createMcpHandler` (per request by design, a
 * fresh server from `factory` each time) behind the edge — the caller's sealed address and
 * `authInfo` handed on as for a 2025 request, the edge's body cap. Its `subscriptions/listen`
 * streams are held open by their clients, so they are capped per client
 * (`maxListenStreamsPerClient`, counted by `edge.caller`) beside the cap for everyone
 * ({@link MAX_LISTEN_STREAMS}): one client opening streams in a loop fills its own share only.
 * Every leg created behind the same edge shares the two counts.
 *
 * @param edge - the edge in front (body already read, Host and Origin checked, caller known)
 * @param factory - a fully registered server for one request
 */
export function createModernMcp(
  edge: S2SPEdge,
  factory: Parameters<typeof createMcpHandler>[0],
): ModernMcp {
  const handler = createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize: edge.options.maxMcpRequestBytes,
    maxSubscriptions: MAX_LISTEN_STREAMS,
  });
  const perClient = edge.options.maxListenStreamsPerClient;
  const slots = listenSlotsOf(edge);
  const release = (client: string) => {
    slots.total--;
    const left = (slots.open.get(client) ?? 1) - 1;
    if (left > 0) slots.open.set(client, left);
    else slots.open.delete(client);
  };

  return {
    async answer(c, parsedBody) {
      if (await isLegacyRequest(c.req.raw, parsedBody)) return undefined;
      const authInfo = edge.authInfo(c);
      const request = edge.clientRequest(c);
      const options = { parsedBody, ...(authInfo && { authInfo }) };
      const listenId = listenRequestId(parsedBody);
      if (listenId === undefined) return handler.fetch(request, options);
      const client = edge.caller(c);
      const own = slots.open.get(client) ?? 0;
      if (own >= perClient)
        return listenRefused(
          listenId,
          `This client already has ${own} subscriptions/listen streams open, its limit on this server. ${useOpenListenStreams}`,
          {
            limit: perClient,
            scope: 'client',
          },
        );
      if (slots.total >= MAX_LISTEN_STREAMS)
        return listenRefused(
          listenId,
          `This server already has ${slots.total} subscriptions/listen streams open, its limit for all clients together. ${retryListenLater}`,
          {
            limit: MAX_LISTEN_STREAMS,
            scope: 'server',
          },
        );
      slots.open.set(client, own + 1);
      slots.total++;
      let response: Response;
      try {
        response = await handler.fetch(request, options);
      } catch (error) {
        release(client);
        throw error;
      }
      // The slot is the stream's until it ends: closed by the server, or the client gone. A
      // refusal or an error answer ends as soon as it is sent.
      return edge.whenStreamEnds(response, () => release(client));
    },
    notify: handler.notify,
    close: () => handler.close(),
  };
}
