import { Agent, request } from 'node:http';
import { type Latency, latency } from './stats.js';

/** Result of a load run. */
export interface LoadResult {
  readonly requests: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly latency: Latency;
  readonly statuses: Record<number, number>;
}

/**
 * Sends `requests` POSTs with `concurrency` in flight over keep-alive connections, reading every
 * response body completely. `path(i)` gives the path of request `i` (a fresh token each time).
 * `node:http` rather than fetch: its client overhead is small and the same for the S2SP data plane
 * and the floor server, so their ratio measures the servers.
 */
export async function runLoad(options: {
  port: number;
  path: (i: number) => string;
  body: string;
  concurrency: number;
  requests: number;
  /** The `Accept` header, when not the default. */
  accept?: string;
}): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const payload = Buffer.from(options.body);
  const samples: number[] = [];
  const statuses: Record<number, number> = {};
  let bytes = 0;
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port: options.port,
          method: 'POST',
          path: options.path(i),
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': payload.length,
            ...(options.accept ? { accept: options.accept } : {}),
          },
        },
        (res) => {
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.on('end', () => {
            samples.push(performance.now() - started);
            statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
            resolve();
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  const worker = async () => {
    while (next < options.requests) await one(next++);
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, options.requests) }, worker),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { requests: options.requests, bytes, seconds, latency: latency(samples), statuses };
}
