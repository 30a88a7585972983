import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { loadNwsFixtures, type NwsFixtures } from './fixtures.js';
import { createNwsReplayApp } from './replay-app.js';

/** Options for {@link startNwsReplayServer}. */
export interface NwsReplayServerOptions {
  /** Port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface; default `127.0.0.1` (the replay is for this machine). */
  readonly host?: string;
  /** Folder of recordings. Default: this app's `fixtures/`. */
  readonly fixturesDir?: string;
}

/** A running replay server; stop it with `close()` or `await using`. */
export interface NwsReplayServer extends AsyncDisposable {
  /** Its base URL, `http://127.0.0.1:PORT`: use it as `NWS_BASE_URL`. */
  readonly url: string;
  readonly port: number;
  /** What it serves. */
  readonly fixtures: NwsFixtures;
  close(): Promise<void>;
}

/**
 * Serves {@link createNwsReplayApp} over HTTP on Node.
 *
 * @param options - port, host and recordings
 * @throws Error when the recordings cannot be read or the port cannot be bound
 */
export async function startNwsReplayServer(
  options: NwsReplayServerOptions = {},
): Promise<NwsReplayServer> {
  const host = options.host ?? '127.0.0.1';
  const fixtures = loadNwsFixtures(options.fixturesDir);
  const app = createNwsReplayApp({ fixtures });
  const http = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host });
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve);
    http.once('error', reject);
  });
  const { port } = http.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      if ('closeAllConnections' in http) http.closeAllConnections();
    });
  };
  return { url, port, fixtures, close, [Symbol.asyncDispose]: close };
}
