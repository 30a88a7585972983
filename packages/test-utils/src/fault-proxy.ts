/**
 * A loopback TCP proxy that breaks HTTP responses on purpose, for the retry-safe redemption tests
 * (PROTOCOL §7.10). It forwards every request as it is and, for each response the `decide`
 * callback picks, fails it only once the server has started answering — that is, after a data
 * plane has committed the take:
 *
 * - `drop`: the connection is reset before any byte of the response reaches the client;
 * - `truncate`: the status line, the headers and half of the body arrive, then the connection
 *   closes (the body is shorter than its `Content-Length`).
 *
 * Requests on one connection are sequential (fetch does not pipeline), so a request is seen as a
 * client chunk that starts with a method, and the response that follows belongs to it.
 */
import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';

/** What the proxy does to one response. */
export type Fault = 'pass' | 'drop' | 'truncate';

/** What `decide` sees of a request. */
export interface ProxiedRequest {
  /** The request line, such as `POST /s2sp/data/… HTTP/1.1`. */
  readonly line: string;
  /** The `Idempotency-Key` header, if the request sent one. */
  readonly idempotencyKey: string | undefined;
}

/** A running {@link startFaultProxy}. */
export interface FaultProxy extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Responses passed, dropped and truncated so far. */
  readonly counts: Record<Fault, number>;
  close(): Promise<void>;
}

const REQUEST_START = /^[A-Z]+ \S+ HTTP\/1\.[01]\r\n/;
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Starts a fault-injecting proxy on 127.0.0.1 (port 0) in front of `targetPort` on 127.0.0.1.
 *
 * @param targetPort - the server's port
 * @param decide - the fault for each request
 */
export async function startFaultProxy(
  targetPort: number,
  decide: (request: ProxiedRequest) => Fault,
): Promise<FaultProxy> {
  const counts: Record<Fault, number> = { pass: 0, drop: 0, truncate: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    let fault: Fault = 'pass';
    let counted = false;
    let held: Buffer[] = [];
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.end();
    });
    client.on('error', end);
    upstream.on('error', end);
    client.on('data', (chunk: Buffer) => {
      const head = chunk.toString('latin1', 0, Math.min(chunk.length, 8192));
      const line = REQUEST_START.exec(head);
      if (line) {
        const key = /\r\nidempotency-key:[ \t]*([^\r\n]*)/i.exec(head)?.[1]?.trim();
        fault = decide({ line: line[0].trim(), idempotencyKey: key });
        counted = false;
        held = [];
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!counted) {
        counts[fault]++;
        counted = true;
      }
      if (fault === 'pass') {
        client.write(chunk);
        return;
      }
      if (fault === 'drop') {
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      // truncate: wait for the headers and some body, then send half of that body and close.
      held.push(chunk);
      const all = Buffer.concat(held);
      const bodyStart = all.indexOf(HEADER_END);
      if (bodyStart < 0 || all.length <= bodyStart + HEADER_END.length) return;
      const bodyBytes = all.length - bodyStart - HEADER_END.length;
      client.end(all.subarray(0, bodyStart + HEADER_END.length + Math.floor(bodyBytes / 2)));
      upstream.destroy();
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
  return { url: `http://127.0.0.1:${port}`, counts, close, [Symbol.asyncDispose]: close };
}
