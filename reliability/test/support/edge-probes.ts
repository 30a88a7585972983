/**
 * The raw-socket probes of figures 20–22, shared by the servers' edge tests and the proxy's: one
 * request with exactly the headers given (node:http lets a test forge Host), and a slow body.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/** An answer as received. */
export interface Sent {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request with exactly the headers given (node:http lets a test forge Host). */
export function send(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const body = options.body ?? '';
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        headers: { 'content-length': Buffer.byteLength(body), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
    req.end(body);
  });
}

/** Slow probes resolve; a socket error or close before an answer is status 0. */
export interface SlowAnswer {
  readonly status: number;
  readonly ms: number;
}

/**
 * Sends `opening`, then `drip` once a second until the server answers or closes (at most 30 s):
 * the slow client of figures 22 and 23, which must get a 408 within the read timeout.
 */
function trickle(port: number, opening: string, drip: string): Promise<SlowAnswer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, ms: performance.now() - started });
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(opening);
      timer = setInterval(() => socket.writable && socket.write(drip), 1000);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\r\n\r\n')) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    setTimeout(finish, 30_000).unref();
  });
}

/** Sends headers and `first` bytes, then one byte a second; resolves with status and time. */
export function slowBody(
  port: number,
  path: string,
  headers: string,
  first: string,
): Promise<SlowAnswer> {
  return trickle(
    port,
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${headers}\r\n${first}`,
    ' ',
  );
}

/**
 * Sends a request line and then one header line a second, never the blank line that ends them;
 * resolves with the status the server answered (0 when it just closed) and the time it took.
 */
export function slowHeaders(port: number, path: string, method = 'GET'): Promise<SlowAnswer> {
  return trickle(
    port,
    `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`,
    'x-slow: 1\r\n',
  );
}
