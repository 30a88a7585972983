import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { BodyStore } from '@s2sp/core';
import { createDataPlaneApp } from '@s2sp/server/http';

/** A running HTTP server on a loopback port. */
export interface RunningServer {
  readonly port: number;
  close(): Promise<void>;
}

async function listening(server: Server): Promise<RunningServer> {
  if (!server.listening)
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The S2SP data plane (the real Hono app on @hono/node-server) over `store`. */
export async function startDataPlane(store: BodyStore): Promise<RunningServer> {
  return listening(
    serve({ fetch: createDataPlaneApp({ store }).fetch, port: 0, hostname: '127.0.0.1' }) as Server,
  );
}

/**
 * The physical floor: a bare `node:http` server answering every POST with the same
 * pre-serialized bytes the data plane would send. Nothing can serve those bytes faster.
 */
export async function startFloorServer(body: Uint8Array): Promise<RunningServer> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': body.byteLength,
        'cache-control': 'no-store',
      });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  return listening(server);
}
