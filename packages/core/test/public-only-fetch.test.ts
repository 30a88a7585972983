import { startHttpServer, type TestServer } from '@s2sp/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchBody } from '../src/fetch/fetch-body.js';
import { generateToken, S2SPError } from '../src/index.js';
import { createPublicOnlyFetch } from '../src/node/index.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function refusal(promise: Promise<unknown>): Promise<S2SPError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!S2SPError.isInstance(error)) throw new Error(`expected an S2SPError, got ${String(error)}`);
  return error;
}

describe('createPublicOnlyFetch', () => {
  it('refuses loopback and private destinations, by literal or by name, before any connection', async () => {
    const server = await startHttpServer((_req, res) => res.end('{"body":[]}'));
    servers.push(server);
    const token = generateToken();
    const publicOnly = createPublicOnlyFetch();
    const nonPublic = /non-public address.*a public resource server/;
    for (const [host, message] of [
      [`127.0.0.1:${server.port}`, nonPublic],
      [`localhost:${server.port}`, nonPublic],
      [`[::1]:${server.port}`, nonPublic],
      [`[::ffff:7f00:1]:${server.port}`, nonPublic],
      [`10.255.255.1:${server.port}`, nonPublic],
      ['169.254.169.254', nonPublic],
      // Not in canonical form (WHATWG writes it [::ffff:7f00:1]): refused even earlier.
      [`[::ffff:127.0.0.1]:${server.port}`, /not in canonical form/],
    ] as const) {
      const error = await refusal(
        fetchBody(`http://${host}/s2sp/data/${token}`, { fetch: publicOnly, timeoutMs: 2000 }),
      );
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(message);
    }
    expect(server.connections()).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('is an ordinary fetch otherwise (the same server is reachable without it)', async () => {
    const server = await startHttpServer((_req, res) => res.end('{"body":[{"_row_id":0,"a":1}]}'));
    servers.push(server);
    const url = `${server.url}/s2sp/data/${generateToken()}`;
    expect((await fetchBody(url, { allowedOrigins: [server.url] })).body).toEqual([
      { _row_id: 0, a: 1 },
    ]);
  });
});
