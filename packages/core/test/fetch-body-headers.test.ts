import type { IncomingHttpHeaders } from 'node:http';
import { startHttpServer, type TestServer } from '@s2sp/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchBody } from '../src/fetch/fetch-body.js';
import { fetchBodyRows } from '../src/fetch/fetch-body-rows.js';
import { generateToken } from '../src/index.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
// A caller's headers travel (trace context); the ones the protocol fixes cannot be replaced.
const extra = {
  traceparent: TRACEPARENT,
  'Content-Type': 'text/plain',
  ACCEPT: 'text/html',
  'accept-encoding': 'gzip',
};

async function capture(): Promise<{ url: string; seen: () => IncomingHttpHeaders }> {
  let seen: IncomingHttpHeaders = {};
  const server = await startHttpServer((req, res) => {
    seen = req.headers;
    res.setHeader('content-type', 'application/json');
    res.end('{"body":[],"total_rows":0}');
  });
  servers.push(server);
  return { url: `${server.url}/s2sp/data/${generateToken()}`, seen: () => seen };
}

describe('extra request headers', () => {
  it('fetchBody sends them beside the fixed ones, which they cannot replace', async () => {
    const { url, seen } = await capture();
    await fetchBody(url, { destinations: 'any', headers: extra });
    expect(seen()).toMatchObject({
      traceparent: TRACEPARENT,
      'content-type': 'application/json',
      accept: 'application/json',
      'accept-encoding': 'identity',
    });
  });

  it('fetchBodyRows sends them too', async () => {
    const { url, seen } = await capture();
    for await (const _row of fetchBodyRows(url, { destinations: 'any', headers: extra })) {
      // no rows
    }
    expect(seen()).toMatchObject({
      traceparent: TRACEPARENT,
      'content-type': 'application/json',
      accept: 'application/x-ndjson, application/json;q=0.5',
      'accept-encoding': 'identity',
    });
  });
});
