/**
 * A loopback TCP proxy that can lose one reply on purpose: it forwards bytes both ways between a
 * client and a server, and when armed it drops the first server-to-client chunk that follows a
 * client chunk containing a marker, then cuts the connection. That is a command that ran on the
 * server whose answer never arrived — the ambiguous case no client can resolve on its own.
 */
import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';

/** A running proxy; `close()` or `await using` stops it. */
export interface ReplyCuttingProxy extends AsyncDisposable {
  readonly port: number;
  /** Arms the proxy: the reply to the next client chunk containing `marker` is lost. */
  loseNextReplyTo(marker: string): void;
  /** How many replies were dropped so far. */
  dropped(): number;
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 (port 0) in front of `127.0.0.1:targetPort`.
 *
 * @param targetPort - the server's port
 */
export async function startReplyCuttingProxy(targetPort: number): Promise<ReplyCuttingProxy> {
  const sockets = new Set<Socket>();
  let marker: string | undefined;
  let dropped = 0;
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    let cutNextReply = false;
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (marker !== undefined && chunk.toString('latin1').includes(marker)) {
        marker = undefined;
        cutNextReply = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutNextReply) {
        // The server has done the work; its answer goes nowhere.
        dropped++;
        end();
        return;
      }
      client.write(chunk);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    loseNextReplyTo(text: string) {
      marker = text;
    },
    dropped: () => dropped,
    close,
    [Symbol.asyncDispose]: close,
  };
}
