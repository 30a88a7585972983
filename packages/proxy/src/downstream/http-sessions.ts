/**
 * The proxy's Streamable HTTP endpoint. For 2025-era clients, unlike `@s2sp/server`'s stateless
 * one, it keeps MCP sessions: notifications the upstream sends at any time (list changes,
 * logging, resource updates) need a session's standalone SSE stream to reach the client. A
 * 2026-07-28 request (no sessions in that revision) is served per request by SDK v2's entry. It
 * sits behind the one HTTP edge of `@s2sp/server/http` (Host and Origin checks, bearer auth, body
 * caps and read timeouts), like the servers' `/mcp`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import {
  type ModernServer,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '../mcp-sdk.js';
import type { GatewayParts, S2SPEdge } from '../tables/s2sp-call.js';
import { createSessionEventStore } from './event-store.js';
import {
  listenResources,
  MAX_LISTEN_RESOURCES,
  tooManyListenResources,
} from './listen-resources.js';

/** Options for {@link mountMcpSessions}. */
export interface McpSessionsOptions {
  /** Path of the endpoint, `/mcp`. */
  readonly path: string;
  /** A new downstream server for a new session. */
  readonly createServer: () => Server;
  /** A new downstream server for one 2026-07-28 request of `client` (its `clientKey`). */
  readonly createModernServer: (client: string) => ModernServer;
  /** Called when a session ends, to drop its subscriptions. */
  readonly onClosed: (server: Server) => void;
  /**
   * Most concurrent sessions. A new session beyond it closes the one idle the longest, unless
   * every session has a request in flight (then 503).
   */
  readonly maxSessions: number;
  /**
   * Most sessions of one client (its authenticated id, else its address): a client's new session
   * beyond it closes that client's own session idle the longest, so one client opening sessions
   * in a loop can never lock the others out.
   */
  readonly maxSessionsPerClient: number;
  /** A session idle (no request) this long is closed, in ms. */
  readonly idleMs: number;
  /**
   * The edge in front, mounted on the app: it has checked `Host`, `Origin` and the bearer token
   * of every request before this endpoint sees it; here it reads POST bodies within its caps and
   * read timeout and names the caller.
   */
  readonly edge: S2SPEdge;
  /** The servers' 2026-07-28 endpoint behind that edge (`GATEWAY_PARTS`). */
  readonly createModernMcp: GatewayParts['createModernMcp'];
  /**
   * Subscribes the upstream session of `client` (its `clientKey`) to the resources one of its
   * `subscriptions/listen` streams names (`resourceSubscriptions`), for as long as that stream
   * is open: resolves once they are subscribed, to what lets them go when the stream ends.
   */
  readonly holdResources: (client: string, uris: readonly string[]) => Promise<() => Promise<void>>;
}

type ModernMcp = ReturnType<GatewayParts['createModernMcp']>;

/**
 * 2026-07-28 clients whose SDK entry (and listen streams) is kept; the one used least recently
 * is let go beyond it (its next request opens a new one).
 */
const MAX_MODERN_CLIENTS = 1024;

/**
 * Most `GET` streams one session may hold open at once: its standalone stream and resumes of
 * broken ones (`Last-Event-ID`). A client needs one or two; each holds a connection and a timer.
 */
export const MAX_GET_STREAMS_PER_SESSION = 4;

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /**
   * Who opened it (`edge.caller`): the per-client limit counts by it, and only this caller may
   * use the session.
   */
  readonly client: string;
  lastSeen: number;
  /** Requests being answered now; a busy session is never evicted. */
  busy: number;
  /** Its open `GET` streams. */
  streams: number;
}

/** The live sessions of the endpoint. */
export interface McpSessions {
  /** The downstream servers of every open session. */
  servers(): Server[];
  /** Open sessions per client (`clientKey`). */
  perClient(): Map<string, number>;
  /**
   * Tells the 2026-07-28 clients' `subscriptions/listen` streams of a list change or a resource
   * update (SDK v2's per-request entry owns the streams; other notifications have no stream):
   * one client's only, when `client` is given, else every client's.
   */
  listeners(
    notification: { method: string; params?: Record<string, unknown> },
    client?: string,
  ): void;
  /** Ends one 2026-07-28 client's listen streams (its upstream session closed). */
  forgetClient(client: string): Promise<void>;
  /** Closes every session. */
  close(): Promise<void>;
}

function jsonRpcError(c: Context, status: 400 | 404 | 429 | 503, message: string) {
  return c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, status);
}

/**
 * Mounts a session-keeping Streamable HTTP MCP endpoint on `app`.
 *
 * @param app - the proxy's Hono app
 * @param options - path, server factory and limits
 */
export function mountMcpSessions(app: Hono, options: McpSessionsOptions): McpSessions {
  const sessions = new Map<string, Session>();
  // The 2026-07-28 leg, one SDK entry per client: its listen streams hear only what concerns that
  // client (its own upstream session's news), and its requests reach its own upstream session.
  const modern = new Map<string, ModernMcp>();
  const modernFor = (client: string): ModernMcp => {
    const found = modern.get(client);
    if (found) {
      // Most recently used last, so that the first is the one to let go when there are too many.
      modern.delete(client);
      modern.set(client, found);
      return found;
    }
    if (modern.size >= MAX_MODERN_CLIENTS) {
      const [oldest] = modern.keys();
      if (oldest !== undefined) void forgetClient(oldest);
    }
    const created = options.createModernMcp(options.edge, () => options.createModernServer(client));
    modern.set(client, created);
    return created;
  };
  const forgetClient = async (client: string) => {
    const entry = modern.get(client);
    if (!entry) return;
    modern.delete(client);
    await entry.close().catch(() => {});
  };

  const end = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    options.onClosed(session.server);
    await session.server.close().catch(() => {});
  };

  /** The session idle the longest among `candidates`, skipping busy ones. */
  const idlest = (candidates: Iterable<[string, Session]>): string | undefined => {
    let found: [string, Session] | undefined;
    for (const entry of candidates) {
      if (entry[1].busy > 0) continue;
      if (!found || entry[1].lastSeen < found[1].lastSeen) found = entry;
    }
    return found?.[0];
  };

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions)
        if (now - session.lastSeen > options.idleMs) void end(id);
    },
    Math.min(options.idleMs, 60_000),
  );
  sweep.unref();

  app.all(options.path, async (c) => {
    // A POST's body is read at the edge (size cap, read timeout, batch limit) and handed to the
    // transport parsed: the SDK itself would wait for a slow body as long as the client takes.
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      const read = await options.edge.readMcpBody(c);
      if (!read.ok) return read.response;
      parsedBody = read.body;
    }
    const authInfo = options.edge.authInfo(c);
    // The caller's address sealed into the request, so that clientKey names the client by its
    // authenticated id, else its address — never by MCP session, which it chooses itself.
    const request = options.edge.clientRequest(c);
    const extra = {
      ...(parsedBody !== undefined && { parsedBody }),
      ...(authInfo && { authInfo }),
    };
    const id = c.req.header('mcp-session-id');
    if (id !== undefined) {
      // Bound to the caller that opened it: another credential (or, without auth, another
      // address) with this id gets the unknown session's answer, and learns nothing.
      const session = options.edge.sessionOf(sessions, id, c);
      if (!session) {
        return jsonRpcError(
          c,
          404,
          'Session not found: it expired or was closed. Reconnect (initialize again).',
        );
      }
      const stream = c.req.method === 'GET';
      if (stream && session.streams >= MAX_GET_STREAMS_PER_SESSION) {
        return jsonRpcError(
          c,
          429,
          `This session already has ${session.streams} GET streams open, its limit. Close one before opening another.`,
        );
      }
      session.lastSeen = Date.now();
      session.busy++;
      if (stream) session.streams++;
      let response: Response | undefined;
      try {
        response = await session.transport.handleRequest(request, extra);
        return stream
          ? options.edge.whenStreamEnds(response, () => {
              session.streams--;
            })
          : response;
      } finally {
        if (stream && response === undefined) session.streams--;
        session.busy--;
        session.lastSeen = Date.now();
      }
    }
    if (c.req.method !== 'POST') {
      return jsonRpcError(
        c,
        400,
        'Bad request: no mcp-session-id header. Start with an initialize POST.',
      );
    }
    const client = options.edge.caller(c);
    const listen = listenResources(parsedBody);
    if (listen && listen.uris.length > MAX_LISTEN_RESOURCES) return tooManyListenResources(listen);
    const answered = await modernFor(client).answer(c, parsedBody);
    if (answered) {
      // A refused listen request is answered in JSON; an open stream is an event stream, and
      // the upstream is subscribed before its first event (the acknowledgement) leaves, so that
      // no update the client was told it would hear of is missed.
      if (!listen || !answered.headers.get('content-type')?.includes('text/event-stream'))
        return answered;
      const release = await options.holdResources(client, listen.uris);
      return options.edge.whenStreamEnds(answered, release);
    }
    const own = [...sessions].filter(([, session]) => session.client === client);
    if (own.length >= options.maxSessionsPerClient) {
      const oldest = idlest(own);
      if (oldest === undefined) {
        return jsonRpcError(
          c,
          503,
          `This client already has ${own.length} MCP sessions open, each answering a request. Reuse one, or close one (DELETE) first.`,
        );
      }
      await end(oldest);
    }
    if (sessions.size >= options.maxSessions) {
      const oldest = idlest(sessions);
      if (oldest === undefined) {
        return jsonRpcError(
          c,
          503,
          `The proxy already has ${options.maxSessions} MCP sessions open, all busy. Try again later.`,
        );
      }
      await end(oldest);
    }
    const server = options.createServer();
    // Event ids on its SSE streams, so that a client whose stream breaks resumes it
    // (Last-Event-ID) and misses nothing; bounded in memory (see event-store.ts), and emptied
    // when the session ends.
    const eventStore = createSessionEventStore();
    // No DNS-rebinding lists on the transport: a session outlives the request that opened it,
    // and the edge checks Host and Origin on every request of it with the one rule.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: options.edge.options.maxMcpRequestBytes,
      eventStore,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, {
          transport,
          server,
          client,
          lastSeen: Date.now(),
          busy: 0,
          streams: 0,
        });
      },
      onsessionclosed: (sessionId) => void end(sessionId),
    });
    transport.onclose = () => {
      eventStore.close();
      if (transport.sessionId) void end(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request, extra);
    // A request that did not initialise a session leaves nothing behind.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close();
    return response;
  });

  return {
    servers: () => [...sessions.values()].map((s) => s.server),
    perClient() {
      const counts = new Map<string, number>();
      for (const session of sessions.values())
        counts.set(session.client, (counts.get(session.client) ?? 0) + 1);
      return counts;
    },
    listeners(notification, client) {
      const uri = notification.params?.uri;
      const targets =
        client === undefined ? [...modern.values()] : [modern.get(client)].filter((m) => !!m);
      for (const { notify } of targets) {
        if (notification.method === 'notifications/tools/list_changed') notify.toolsChanged();
        else if (notification.method === 'notifications/prompts/list_changed')
          notify.promptsChanged();
        else if (notification.method === 'notifications/resources/list_changed')
          notify.resourcesChanged();
        else if (
          notification.method === 'notifications/resources/updated' &&
          typeof uri === 'string'
        )
          notify.resourceUpdated(uri);
      }
    },
    forgetClient,
    async close() {
      clearInterval(sweep);
      await Promise.all([...modern.keys()].map(forgetClient));
      await Promise.all([...sessions.keys()].map(end));
    },
  };
}
