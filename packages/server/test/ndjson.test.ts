// The NDJSON extension (PROTOCOL §7, 0.2.0) end to end: a real data plane on a socket, fetched
// with fetchBodyRows, and the consumer's checks against servers that misbehave.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  type FetchBodyOptions,
  fetchBodyRows as fetchBodyRowsSafe,
  generateToken,
  PROTOCOL,
  S2SPError,
  tokenStorageKey,
} from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataPlaneApp } from '../src/http/index.js';
import { prepareTable, serializeTable } from '../src/resource/table.js';

const store = createMemoryStore();
// Loopback data planes: these tests opt out of public destinations only.
const fetchBodyRows = (url: string, options: FetchBodyOptions = {}) =>
  fetchBodyRowsSafe(url, { destinations: 'any', ...options });
let server: ReturnType<typeof serve>;
let base: string;
const rows = Array.from({ length: 2000 }, (_, i) => ({
  event: `e${i}`,
  text: `${'ß😀'.repeat(i % 50)}, "quoted"\n`,
}));

beforeAll(async () => {
  server = serve({ fetch: createDataPlaneApp({ store }).fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
});

async function cached(): Promise<string> {
  const token = generateToken();
  await store.put(await tokenStorageKey(token), serializeTable(prepareTable(rows)), {
    ttlMs: 60_000,
  });
  return `${base}/s2sp/data/${token}`;
}

async function collect<T>(rowsOf: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rowsOf) out.push(row);
  return out;
}

/** A server that answers every POST with `status`, `headers` and `body`. */
async function fake(
  headers: Record<string, string>,
  body: string,
): Promise<{ url: string; server: Server }> {
  const fakeServer = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, headers);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => fakeServer.listen(0, '127.0.0.1', resolve));
  const { port } = fakeServer.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/s2sp/data/${generateToken()}`, server: fakeServer };
}

describe('NDJSON data plane', () => {
  it('answers Accept: application/x-ndjson with one row per line and the row count', async () => {
    const response = await fetch(await cached(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: PROTOCOL.ndjsonMediaType },
      body: '{}',
    });
    expect(response.headers.get('content-type')).toBe(PROTOCOL.ndjsonMediaType);
    expect(response.headers.get('s2sp-total-rows')).toBe('2000');
    const text = await response.text();
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line))).toEqual(
      rows.map((row, i) => ({ _row_id: i, ...row })),
    );
  });

  it('still answers JSON by default', async () => {
    const response = await fetch(await cached(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(((await response.json()) as { total_rows: number }).total_rows).toBe(2000);
  });

  it('streams rows to fetchBodyRows: whole tables, selected rows, columns', async () => {
    const all = await collect(fetchBodyRows(await cached()));
    expect(all).toEqual(rows.map((row, i) => ({ _row_id: i, ...row })));
    const some = await collect(
      fetchBodyRows(await cached(), { rowIds: [1999, 3, 99_999], columns: ['event'] }),
    );
    expect(some).toEqual([
      { _row_id: 3, event: 'e3' },
      { _row_id: 1999, event: 'e1999' },
    ]);
  });

  it('reads a plain JSON answer (the Python reference) row by row too', async () => {
    const { url, server: json } = await fake(
      { 'content-type': 'application/json' },
      '{"body":[{"_row_id":0,"a":1},{"_row_id":1,"a":2}],"total_rows":2}',
    );
    try {
      expect(await collect(fetchBodyRows(url))).toEqual([
        { _row_id: 0, a: 1 },
        { _row_id: 1, a: 2 },
      ]);
    } finally {
      json.close();
    }
  });

  it('refuses a cut stream, a bad line and a row over maxRowBytes', async () => {
    const cases: [Record<string, string>, string, Record<string, number>, string][] = [
      [{ 's2sp-total-rows': '3' }, '{"_row_id":0}\n{"_row_id":1}\n', {}, 'upstream_error'],
      [{}, '{"_row_id":0}\n[1,2]\n', {}, 'upstream_error'],
      [{}, `{"_row_id":0,"x":"${'y'.repeat(5000)}"}\n`, { maxRowBytes: 1000 }, 'payload_too_large'],
      [{}, `${'{"_row_id":0}\n'.repeat(1000)}`, { maxBytes: 2000 }, 'payload_too_large'],
    ];
    for (const [headers, body, limits, code] of cases) {
      const { url, server: bad } = await fake(
        { 'content-type': PROTOCOL.ndjsonMediaType, ...headers },
        body,
      );
      try {
        const error = await collect(fetchBodyRows(url, limits)).catch((e: unknown) => e);
        expect(S2SPError.isInstance(error) && error.code).toBe(code);
      } finally {
        bad.close();
      }
    }
  });

  it('uses the token up once: a second fetch gets not_found', async () => {
    const url = await cached();
    expect(await collect(fetchBodyRows(url, { rowIds: [0] }))).toHaveLength(1);
    const error = await collect(fetchBodyRows(url)).catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('not_found');
  });
});
