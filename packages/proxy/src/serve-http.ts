/**
 * Serving the proxy's Hono app on Node (`@hono/node-server`), loaded on demand.
 *
 * @module
 */
import type { Hono } from 'hono';

/** A bound HTTP server. */
export interface BoundHttp {
  /** `http://127.0.0.1:3010` (IPv6 hosts in brackets). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and closes open ones (SSE streams included). */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (0: a free port).
 *
 * @throws the listen error (`EADDRINUSE`, `EACCES`) when the port cannot be bound
 */
export async function serveHttp(app: Hono, port: number, host: string): Promise<BoundHttp> {
  const { serve } = await import('@hono/node-server');
  const http = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(server));
    server.once('error', reject);
  });
  const address = http.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        if ('closeAllConnections' in http) http.closeAllConnections();
      }),
  };
}
