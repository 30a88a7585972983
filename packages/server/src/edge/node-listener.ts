import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { S2SPError } from '@s2sp/core';
import { retryShortly } from '@s2sp/core/advice';
import { s2spErrorToResponse } from './error-response.js';

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

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Serves a Fetch handler over HTTP on Node with `@hono/node-server` (loaded on first use, so the
 * package's main entry needs no Node), with errors that say what to change.
 *
 * @param limits - `headersTimeoutMs`: most time a client may take to send its request headers;
 *   `shutdownGraceMs`: the bound of `shutdown()` when it is given none (default 0)
 * @throws S2SPError `invalid_config` for a bad port, or one that is taken
 */
export async function listenOnNode(
  fetch: (request: Request) => Response | Promise<Response>,
  { port = 0, host = '127.0.0.1' }: ListenOptions = {},
  {
    headersTimeoutMs,
    shutdownGraceMs = 0,
  }: { readonly headersTimeoutMs?: number; readonly shutdownGraceMs?: number } = {},
): Promise<NodeListener> {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new S2SPError(
      'invalid_config',
      `port must be a whole number from 0 to 65535, got ${String(port)}.`,
    );
  }
  const { serve } = await import('@hono/node-server');
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
  const http = serve({ fetch: guarded, port, hostname: host, serverOptions }) as Server;
  // Requests whose answer has not been sent to the end: what shutdown() waits for.
  let running = 0;
  let onIdle: (() => void) | undefined;
  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    // A request that started while draining must not keep its connection open afterwards.
    if (draining) response.shouldKeepAlive = false;
    // An MCP session's standing event stream (GET, text/event-stream) is not work to wait for:
    // it would hold every shutdown for the whole grace period.
    if (request.method === 'GET' && request.headers.accept?.includes('text/event-stream')) return;
    running++;
    response.once('close', () => {
      running--;
      if (running === 0) onIdle?.();
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
      // Stops accepting connections (Node also closes the idle kept-alive ones); resolves once
      // every connection is gone.
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      if (graceMs > 0 && running > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        // A connection that served its last answer goes idle; close those as they appear.
        const sweep = setInterval(() => http.closeIdleConnections(), 100);
        await new Promise<void>((resolve) => {
          onIdle = resolve;
          timer = setTimeout(resolve, graceMs);
        });
        clearInterval(sweep);
        clearTimeout(timer);
      }
      http.closeAllConnections();
      await closed;
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
