import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { S2SPError } from '@s2sp/core';
import { retryShortly } from '@s2sp/core/advice';
import { parseOptions } from '@s2sp/core/options';
import { z } from 'zod';
import type { NodeFrontDoor } from '../data-plane/node-front-door.js';
import { PortSchema } from './edge-options.js';
import { s2spErrorToResponse } from './error-response.js';

/** What `listen()` checks: the port, by the one port rule. */
const ListenSchema = z.object({ port: PortSchema });

/** Options for {@link S2SPServer.listen}. */
export interface ListenOptions {
  /** Port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface to bind. Default `127.0.0.1`. */
  readonly host?: string;
  /**
   * Serve only the data plane (`/s2sp/data/:token`, `/s2sp/health`) on this listener, not MCP or
   * anything else of the app: for a server whose MCP runs on stdio. Default false.
   */
  readonly dataPlaneOnly?: boolean;
}

/** Options for {@link NodeListener.shutdown}. */
export interface ShutdownOptions {
  /**
   * Longest the requests already running may take to finish, in ms; what is still open then is
   * cut. 0 cuts them at once, as `close()` does.
   */
  readonly graceMs?: number;
}

/** Seconds a client is told to wait (`Retry-After`) by a listener that is shutting down. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;

/**
 * An HTTP listener of a Fetch handler on Node; close it with `close()` or `await using`, or drain
 * it with `shutdown()`.
 */
export interface NodeListener extends AsyncDisposable {
  /** Base URL to advertise: `http://host:port`, with `127.0.0.1` for a wildcard bind. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Whether the bind was on every interface (`0.0.0.0`, `::`). */
  readonly wildcard: boolean;
  /** `Host` values that name this listener (`127.0.0.1:PORT`, `localhost:PORT`, …). */
  readonly hosts: readonly string[];
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
  /**
   * Graceful stop, for SIGTERM: stops accepting connections, answers any new request on an open
   * one with 503 `unavailable` and `Retry-After` (and closes that connection), lets the requests
   * already running finish — a data-plane redemption streaming its body, an MCP tool call — for
   * up to `graceMs`, then closes what is left. Resolves when the listener is closed.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
}

/** How long a draining listener must see no new request before it closes its connections. */
const QUIET_MS = 250;

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Serves a Fetch handler over HTTP on Node with `@hono/node-server` (loaded on first use, so the
 * package's main entry needs no Node), with errors that say what to change.
 *
 * @param limits - `headersTimeoutMs`: most time a client may take to send its request headers;
 *   `shutdownGraceMs`: the bound of `shutdown()` when it is given none (default 0);
 *   `frontDoor`: serves what it can (the data plane) straight from Node, before the app, unless
 *   the listener is shutting down
 * @throws S2SPError `invalid_config` for a bad port, or one that is taken
 */
export async function listenOnNode(
  fetch: (request: Request) => Response | Promise<Response>,
  { port = 0, host = '127.0.0.1' }: ListenOptions = {},
  {
    headersTimeoutMs,
    shutdownGraceMs = 0,
    frontDoor,
  }: {
    readonly headersTimeoutMs?: number;
    readonly shutdownGraceMs?: number;
    readonly frontDoor?: NodeFrontDoor;
  } = {},
): Promise<NodeListener> {
  parseOptions(ListenSchema, { port }, { factory: 'listen' });
  const [{ getRequestListener }, { createServer }] = await Promise.all([
    import('@hono/node-server'),
    import('node:http'),
  ]);
  // A client that trickles its headers holds a socket for Node's default 60 s (slowloris); the
  // same bound as a request body's read applies, checked every second instead of every 30.
  const serverOptions =
    headersTimeoutMs === undefined
      ? {}
      : {
          headersTimeout: headersTimeoutMs,
          connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
        };
  // Set by shutdown(): from then on a request that still reaches us (on a kept-alive connection)
  // is answered 503 at once, so that a client or a load balancer retries it elsewhere.
  let draining = false;
  const guarded = (request: Request, env: unknown): Response | Promise<Response> => {
    if (!draining)
      return (fetch as (r: Request, e: unknown) => Response | Promise<Response>)(request, env);
    return s2spErrorToResponse(
      new S2SPError(
        'unavailable',
        `This server is shutting down and takes no new requests. ${retryShortly}`,
      ),
      { 'retry-after': String(SHUTDOWN_RETRY_AFTER_SECONDS), connection: 'close' },
    );
  };
  // As @hono/node-server's serve() builds it, with the front door first: a draining listener
  // leaves every request to `guarded`, whose 503 is the one answer then.
  const app = getRequestListener(guarded, { hostname: host });
  const http: Server = createServer(serverOptions, (request, response) => {
    if (!draining && frontDoor?.(request, response)) return;
    void app(request, response);
  });
  http.listen(port, host);
  // Answers not yet sent to the end: what shutdown() waits for.
  const running = new Set<ServerResponse>();
  let lastRequestAt = 0;
  let onChange: (() => void) | undefined;
  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    lastRequestAt = performance.now();
    // A request that started while draining must not keep its connection open afterwards.
    if (draining) response.shouldKeepAlive = false;
    // An MCP session's standing event stream (GET, text/event-stream) is not work to wait for:
    // it would hold every shutdown for the whole grace period.
    if (request.method === 'GET' && request.headers.accept?.includes('text/event-stream')) return;
    running.add(response);
    response.once('close', () => {
      running.delete(response);
      onChange?.();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve);
    http.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? `port ${port} is already in use; pick another PORT`
          : error.message;
      reject(
        new S2SPError('invalid_config', `Cannot listen on ${host}:${port}: ${reason}.`, {
          cause: error,
        }),
      );
    });
  });
  const address = http.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const wildcard = WILDCARD_HOSTS.has(host);
  let closing: Promise<void> | undefined;
  const shutdown = ({ graceMs = shutdownGraceMs }: ShutdownOptions = {}): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      if (graceMs > 0) {
        // Stops accepting connections but, unlike http.Server's close(), leaves the idle
        // kept-alive ones open while the running requests finish: a request a client sends on
        // one meanwhile gets a 503 it knows to retry, instead of a connection closed under it.
        const { Server: NetServer } = await import('node:net');
        const stopped = new Promise<void>((resolve) =>
          NetServer.prototype.close.call(http, () => resolve()),
        );
        // An answer that has not started yet says `Connection: close`, so its client opens a
        // new connection next time — which is refused, and it goes elsewhere.
        for (const response of running) if (!response.headersSent) response.shouldKeepAlive = false;
        const deadline = performance.now() + graceMs;
        // Done when nothing runs and no request came for QUIET_MS: a client that just read an
        // answer on a kept-alive connection and sends its next request there gets the 503
        // rather than a connection closed as it writes.
        for (;;) {
          const now = performance.now();
          if (now >= deadline) break;
          if (running.size === 0 && now - lastRequestAt >= QUIET_MS) break;
          const wait = running.size > 0 ? deadline - now : lastRequestAt + QUIET_MS - now;
          let timer: ReturnType<typeof setTimeout> | undefined;
          await new Promise<void>((resolve) => {
            onChange = () => {
              if (running.size === 0) resolve();
            };
            timer = setTimeout(resolve, Math.max(1, Math.min(wait, deadline - now)));
          });
          onChange = undefined;
          clearTimeout(timer);
        }
        http.closeAllConnections();
        await stopped;
      }
      // http.Server's own close, also after the above: it stops its connection-checking timer.
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    })();
    return closing;
  };
  const close = () => shutdown({ graceMs: 0 });
  return {
    url: `http://${formatHost(wildcard ? '127.0.0.1' : host)}:${boundPort}`,
    port: boundPort,
    wildcard,
    hosts: [`${formatHost(host)}:${boundPort}`],
    close,
    shutdown,
    [Symbol.asyncDispose]: close,
  };
}
