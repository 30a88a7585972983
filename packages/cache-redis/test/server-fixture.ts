/**
 * A real S2SP resource server on a Redis store, as a replica behind a load balancer would run.
 */
import { createS2SPServer, type ListeningServer, silentLogger } from '@s2sp/server';
import {
  createRedisBodyStore,
  type RedisBodyStore,
  type RedisBodyStoreOptions,
} from '../src/index.js';

/** The table every replica's `get_rows` tool returns. */
export const ROWS = Array.from({ length: 8 }, (_, i) => ({
  kind: i % 2 === 0 ? 'even' : 'odd',
  detail: `detail-${i}`,
  score: i * 10,
}));

/** A resource server replica and its store; `close()` closes both. */
export interface Replica extends AsyncDisposable {
  readonly store: RedisBodyStore;
  readonly http: ListeningServer;
  close(): Promise<void>;
}

/**
 * Starts a replica: `createS2SPServer` with a Redis store and one resource tool, listening on
 * 127.0.0.1 port 0.
 *
 * @param storeOptions - how the replica's store reaches Redis
 */
export async function startReplica(storeOptions: RedisBodyStoreOptions): Promise<Replica> {
  const store = createRedisBodyStore(storeOptions);
  const server = createS2SPServer({ name: 'rows', version: '1.0.0', store, logger: silentLogger });
  server.resourceTool('get_rows', { description: 'A small table.' }, () => ROWS);
  const http = await server.listen();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close(); // a store passed in is the caller's to close
    await store.close();
  };
  return { store, http, close, [Symbol.asyncDispose]: close };
}

/** The same resource_url, pointed at another replica (as a load balancer would route it). */
export function atReplica(resourceUrl: string, replica: Replica): string {
  const url = new URL(resourceUrl);
  return `${replica.http.url}${url.pathname}`;
}

/** POSTs a data-plane request and returns status and parsed body; never waits more than 10 s. */
export async function redeem(
  url: string,
  body: unknown = {},
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    // A hang fails the test here instead of at the test timeout: the store must answer in time.
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, json: await response.json() };
}
