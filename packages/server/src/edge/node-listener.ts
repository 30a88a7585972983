import { S2SPError } from '@s2sp/core';

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

/** An HTTP listener of a Fetch handler on Node; close it with `close()` or `await using`. */
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
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Serves a Fetch handler over HTTP on Node with `@hono/node-server` (loaded on first use, so the
 * package's main entry needs no Node), with errors that say what to change.
 *
 * @param limits - `headersTimeoutMs`: most time a client may take to send its request headers
 * @throws S2SPError `invalid_config` for a bad port, or one that is taken
 */
export async function listenOnNode(
  fetch: (request: Request) => Response | Promise<Response>,
  { port = 0, host = '127.0.0.1' }: ListenOptions = {},
  { headersTimeoutMs }: { readonly headersTimeoutMs?: number } = {},
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
  const http = serve({ fetch, port, hostname: host, serverOptions });
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
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      if ('closeAllConnections' in http) http.closeAllConnections();
    });
  };
  return {
    url: `http://${formatHost(wildcard ? '127.0.0.1' : host)}:${boundPort}`,
    port: boundPort,
    wildcard,
    hosts: [`${formatHost(host)}:${boundPort}`],
    close,
    [Symbol.asyncDispose]: close,
  };
}
