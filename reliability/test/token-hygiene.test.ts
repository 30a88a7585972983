// Figure 14: token hygiene.
// - 10^6 minted tokens: no duplicate, each the 43-character base64url form of 32 bytes.
// - A whole debug-level run (two resource servers, a consumer, an agent, good and bad requests, a
//   Redis outage): every log line, every error message and HTTP body, every Redis key and value,
//   Redis's on-disk RDB and AOF files, the memory store's keys and tables, and everything the
//   process wrote to stdout/stderr hold none of the issued tokens or resource_urls; every store
//   key is a 64-hex SHA-256 (under the prefix).
// - The advertised base URL never comes from an untrusted Host header.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisBodyStore } from '@s2sp/cache-redis';
import { generateToken, isTokenShape, S2SPResultSchema } from '@s2sp/core';
import { type BodyStore, createMemoryStore, type StoredTable } from '@s2sp/core/store';
import { createConsoleLogger, createS2SPServer, type S2SPServer } from '@s2sp/server';
import { connectMcpClient, startRedis, type TestMcpClient } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';
import { callToolInProcess, resultText } from './support/mcp.js';

const TOKENS = bySize(1_000_000, 1_000_000);

describe('figure 14: token hygiene', () => {
  it(`${TOKENS.toLocaleString('en-US')} tokens: zero duplicates, all 43-char base64url of 32 bytes`, () => {
    const seen = new Set<string>();
    let malformed = 0;
    // Character counts per position 0..41 (the 43rd carries only 4 bits): uniform for a CSPRNG.
    const counts = new Map<string, number>();
    const started = performance.now();
    for (let i = 0; i < TOKENS; i++) {
      const token = generateToken();
      seen.add(token);
      if (i % 10 === 0) {
        const bytes = Buffer.from(token, 'base64url');
        if (
          token.length !== 43 ||
          !/^[A-Za-z0-9_-]{43}$/.test(token) ||
          bytes.length !== 32 ||
          bytes.toString('base64url') !== token ||
          !isTokenShape(token)
        )
          malformed++;
        for (let p = 0; p < 42; p++) {
          const c = token[p] as string;
          counts.set(c, (counts.get(c) ?? 0) + 1);
        }
      } else if (!isTokenShape(token)) malformed++;
    }
    const seconds = (performance.now() - started) / 1000;
    const duplicates = TOKENS - seen.size;
    const expected = ((TOKENS / 10) * 42) / 64;
    const deviation = Math.max(
      ...[...counts.values()].map((n) => Math.abs(n - expected) / expected),
    );
    recordFigure({
      id: '14.1',
      title: `Duplicates among ${TOKENS.toLocaleString('en-US')} minted tokens (generated in ${seconds.toFixed(1)} s)`,
      value: duplicates,
      target: '0',
      met: duplicates === 0,
    });
    recordFigure({
      id: '14.2',
      title:
        'Tokens not of the minted shape (43 base64url characters; every 10th also decoded: 32 bytes, canonical re-encoding)',
      value: malformed,
      target: '0',
      met: malformed === 0,
    });
    recordFigure({
      id: '14.3',
      title: `Largest deviation of a base64url character’s frequency from uniform (${counts.size} characters, ${((TOKENS / 10) * 42).toLocaleString('en-US')} positions sampled)`,
      value: deviation * 100,
      unit: '%',
      target: '< 2 % (64 characters used evenly)',
      met: deviation < 0.02 && counts.size === 64,
    });
    expect(duplicates).toBe(0);
    expect(malformed).toBe(0);
    expect(counts.size).toBe(64);
    expect(deviation).toBeLessThan(0.02);
  });

  it('a debug-level run leaves no token or resource_url in logs, errors, keys, values or dumps', async () => {
    const redisDir = mkdtempSync(join(tmpdir(), 's2sp-hygiene-'));
    await using redis = await startRedis({
      args: [
        '--dir',
        redisDir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--rdbcompression',
        'no',
      ],
    });
    const output = captureProcessOutput();
    const lines: string[] = [];
    const write = (line: string) => lines.push(line);
    const storeLines: string[] = [];
    const storeLogger = {
      info: (m: string, f?: object) => storeLines.push(`${m} ${JSON.stringify(f ?? {})}`),
      warn: (m: string, f?: object) => storeLines.push(`${m} ${JSON.stringify(f ?? {})}`),
      error: (m: string, f?: object) => storeLines.push(`${m} ${JSON.stringify(f ?? {})}`),
    };
    const keyPrefix = `rel-${randomBytes(4).toString('hex')}:`;
    const redisStore = createRedisBodyStore({
      url: redis.url,
      keyPrefix,
      commandTimeoutMs: 1000,
      connectTimeoutMs: 1000,
      logger: storeLogger,
    });
    const memory = recordingStore(createMemoryStore());
    const servers: S2SPServer[] = [];
    const texts: string[] = []; // every other tool result, error message and HTTP body
    const tokens: string[] = [];
    const urls: string[] = [];
    try {
      const rows = Array.from({ length: 6 }, (_, i) => ({ kind: `k${i}`, detail: `d${i}` }));
      const resource = (name: string, store: BodyStore) => {
        const server = createS2SPServer({
          name,
          version: '1.0.0',
          store,
          logger: createConsoleLogger({ level: 'debug', name, write }),
        });
        server.resourceTool('get_rows', { description: 'Rows.' }, () => rows);
        servers.push(server);
        return server;
      };
      const onRedis = resource('on-redis', redisStore);
      const inMemory = resource('in-memory', memory.store);
      const [redisHttp, memoryHttp] = [await onRedis.listen(), await inMemory.listen()];
      const consumer = createS2SPServer({
        name: 'consumer',
        version: '1.0.0',
        logger: createConsoleLogger({ level: 'debug', name: 'consumer', write }),
        consumer: { allowedOrigins: [redisHttp.url, memoryHttp.url], timeoutMs: 2000 },
      });
      consumer.consumerTool('summarise', { description: 'Counts.' }, (r) => `${r.length}`);
      servers.push(consumer);
      const consumerHttp = await consumer.listen();
      await using toRedis = await connectMcpClient(redisHttp.mcpUrl);
      await using toMemory = await connectMcpClient(memoryHttp.mcpUrl);
      await using toConsumer = await connectMcpClient(consumerHttp.mcpUrl);

      const mint = async (agent: TestMcpClient) => {
        // The resource tool's own result is the one place a resource_url belongs: not searched.
        const result = await agent.call('get_rows', { abstract_domains: 'kind' });
        const url = S2SPResultSchema.parse(result.structuredContent).resource_url as string;
        urls.push(url);
        tokens.push(url.split('/').pop() as string);
        return url;
      };
      const post = async (url: string, body: string, type = 'application/json') => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': type },
          body,
        });
        const text = await response.text();
        texts.push(text);
        return response.status;
      };
      const consume = async (resourceUrl: string) => {
        const result = await toConsumer.call('summarise', {
          abstract_data: '[{"_row_id":0},{"_row_id":2}]',
          resource_url: resourceUrl,
        });
        texts.push(...result.content.map((c) => c.text ?? ''));
        return result;
      };

      const statuses: number[] = [];
      for (const agent of [toRedis, toMemory]) {
        for (let i = 0; i < 10; i++) {
          const url = await mint(agent);
          // Every way a redemption can go, on every token.
          const bad = [
            await post(url, '{"row_ids":"0"}'),
            await post(url, 'not json'),
            await post(url, '{}', 'text/plain'),
            await post(url, `{"row_ids":[${'0,'.repeat(600_000)}0]}`), // over 1 MiB
          ];
          expect(bad).toEqual([400, 400, 415, 413]);
          statuses.push(...bad);
          if (i % 2 === 0) {
            const consumed = await consume(url);
            expect(consumed.isError, resultText(consumed as never)).toBeFalsy(); // the consumer redeems it
            expect((await consume(url)).isError).toBe(true); // used: 404 advice
          } else {
            statuses.push(await post(url, '{"row_ids":[1]}')); // 200
            statuses.push(await post(url, '{}')); // 404
          }
          // Malformed variants of the live URL: refused, and the refusal must not echo them.
          for (const variant of [
            `${url}?x=1`,
            `${url}#f`,
            url.replace('://', '://u:p@'),
            `${url}/..`,
          ])
            expect((await consume(variant)).isError).toBe(true);
        }
      }
      statuses.push(await post(`${redisHttp.url}/s2sp/data/${generateToken()}`, '{}')); // unknown
      statuses.push(await post(`${redisHttp.url}/s2sp/data/not-a-token`, '{}')); // junk
      expect(new Set(statuses)).toEqual(new Set([200, 400, 404, 413, 415]));

      // A Redis outage mid-run: the errors, warnings and 503s it causes are searched too.
      const survivor = await mint(toRedis);
      await redis.kill('SIGKILL');
      texts.push(resultText(await toRedis.call('get_rows', { abstract_domains: 'kind' })));
      expect(await post(survivor, '{}')).toBe(503);
      expect((await consume(survivor)).isError).toBe(true);
      await redis.restart();
      await eventually(async () => (await post(survivor, '{"row_ids":[0]}')) === 200);

      // Dump Redis: keys, values, and the files it persists.
      const client = createClient({ url: redis.url });
      client.on('error', () => {});
      await client.connect();
      // Live entries, so the key check and the dumps see entries, not only their history.
      const liveUrls = [
        await mint(toRedis),
        await mint(toRedis),
        await mint(toRedis),
        await mint(toRedis),
        await mint(toRedis),
      ];
      const keys = await client.keys('*');
      const values: string[] = [];
      for (const key of keys) {
        const type = await client.type(key);
        if (type === 'hash') values.push(JSON.stringify(await client.hGetAll(key)));
        else if (type === 'string') values.push(String(await client.get(key)));
        else values.push(`${type}`);
      }
      await client.sendCommand(['SAVE']);
      await client.close();
      const files = filesUnder(redisDir).map((file) => readFileSync(file).toString('latin1'));

      const entryKeys = keys.filter((key) => key.startsWith(keyPrefix));
      const badRedisKeys = entryKeys.filter(
        // An entry's keys (cache-redis 0.2): its metadata, its row offsets (":o") and blocks (":0"…).
        (key) => !new RegExp(`^${escapeRegExp(keyPrefix)}\\{[0-9a-f]{64}\\}(:o|:\\d+)?$`).test(key),
      );
      for (const live of liveUrls)
        expect(entryKeys).toContain(`${keyPrefix}{${sha256(live.split('/').pop() as string)}}`);
      const badMemoryKeys = memory.keys.filter((key) => !/^[0-9a-f]{64}$/.test(key));
      const hashes = new Set(tokens.map(sha256));
      const unrelatedMemoryKeys = memory.keys.filter((key) => !hashes.has(key));

      output.stop();
      const haystacks: [string, string[]][] = [
        ['log lines', [...lines, ...storeLines]],
        ['tool results, error messages, HTTP bodies', texts],
        ['Redis keys', keys],
        ['Redis values', values],
        ['Redis RDB and AOF files', files],
        ['memory store keys and tables', [...memory.keys, ...memory.tables]],
        ['process stdout/stderr', output.text()],
      ];
      const hits: string[] = [];
      for (const [where, hay] of haystacks) {
        for (const item of hay)
          for (const needle of [...tokens, ...urls])
            if (item.includes(needle)) hits.push(`${where}: ${needle.slice(0, 60)}`);
      }
      const searched = haystacks.reduce((sum, [, hay]) => sum + hay.length, 0);
      recordFigure({
        id: '14.4',
        title: `Hits for ${tokens.length} issued tokens and their resource_urls in a debug-level run: ${lines.length + storeLines.length} log lines, ${texts.length} tool results/error messages/HTTP bodies, ${keys.length} Redis keys with their values, Redis RDB+AOF (${Math.round(files.reduce((s, f) => s + f.length, 0) / 1024)} KiB), memory-store keys and tables, process output (${searched} items)`,
        value: hits.length,
        target: '0',
        met: hits.length === 0,
      });
      recordFigure({
        id: '14.5',
        title: `Store keys that are not a 64-hex SHA-256 of an issued token (Redis under its prefix: ${entryKeys.length}; memory store: ${memory.keys.length})`,
        value: badRedisKeys.length + badMemoryKeys.length + unrelatedMemoryKeys.length,
        target: '0',
        met: badRedisKeys.length + badMemoryKeys.length + unrelatedMemoryKeys.length === 0,
      });
      expect(lines.some((line) => line.includes(' debug '))).toBe(true); // it really was debug
      expect(hits).toEqual([]);
      expect(badRedisKeys).toEqual([]);
      expect(badMemoryKeys).toEqual([]);
      expect(unrelatedMemoryKeys).toEqual([]);
    } finally {
      output.stop();
      for (const server of servers) await server.close();
      await redisStore.close();
      rmSync(redisDir, { recursive: true, force: true });
    }
  });

  it('the advertised base URL never comes from an untrusted Host header', async () => {
    const rows = [{ kind: 'a', detail: 'b' }];
    const make = (options: { publicUrl?: string; trustedHosts?: string[] }) => {
      const server = createS2SPServer({
        name: 'hosts',
        version: '1.0.0',
        logger: createConsoleLogger({ level: 'silent' }),
        // The edge's Host check (figure 20) would refuse these requests with 403 before the tool
        // runs; it is off here so that the resource tool's own rule — what createS2SP users on
        // their own transport rely on — is what this figure measures.
        allowedHosts: ['*'],
        ...options,
      });
      server.resourceTool('get_rows', { description: 'Rows.' }, () => rows);
      return server;
    };
    const advertised = async (server: S2SPServer, url: string, headers = {}) => {
      const result = await callToolInProcess(
        server.app,
        url,
        'get_rows',
        { abstract_domains: 'kind' },
        headers,
      );
      return result.isError
        ? `error: ${resultText(result)}`
        : ((result.structuredContent as { resource_url: string }).resource_url as string);
    };
    const spoofs = [
      ['http://evil.example/mcp', {}],
      ['http://evil.example:8080/mcp', {}],
      ['http://127.0.0.1.evil.example/mcp', {}],
      ['http://localhost.evil.example/mcp', {}],
      [
        'http://evil.example/mcp',
        { 'x-forwarded-host': 'evil.example', forwarded: 'host=evil.example' },
      ],
    ] as const;
    const withPublicUrl = make({ publicUrl: 'https://data.example.com/base' });
    const listening = make({});
    const unlistened = make({});
    const trusting = make({ trustedHosts: ['data.example.com'] });
    const results: { case: string; url: string }[] = [];
    try {
      const http = await listening.listen();
      await trusting.listen();
      for (const [url, headers] of spoofs) {
        results.push({
          case: `publicUrl, ${url}`,
          url: await advertised(withPublicUrl, url, headers),
        });
        results.push({ case: `listening, ${url}`, url: await advertised(listening, url, headers) });
        results.push({
          case: `no address, ${url}`,
          url: await advertised(unlistened, url, headers),
        });
        results.push({
          case: `trusted list, ${url}`,
          url: await advertised(trusting, url, headers),
        });
      }
      // Over a real socket, with a forged Host header on the wire.
      results.push({ case: 'real socket, Host: evil.example', url: await viaSocket(http.port) });
      // Positive control: a host on the trusted list is used.
      const trusted = await advertised(trusting, 'http://data.example.com/mcp');
      expect(trusted.startsWith('http://data.example.com/s2sp/data/')).toBe(true);
    } finally {
      for (const server of [withPublicUrl, listening, unlistened, trusting]) await server.close();
    }
    const fromEvil = results.filter((r) => r.url.includes('evil.example'));
    recordFigure({
      id: '14.6',
      title: `Tool calls with an untrusted Host (evil.example, look-alikes, X-Forwarded-Host, Forwarded; in process and over a real socket) whose resource_url used that host`,
      value: `${fromEvil.length}/${results.length}`,
      target: `0/${results.length}`,
      met: fromEvil.length === 0,
    });
    expect(fromEvil).toEqual([]);
    for (const r of results) {
      if (r.case.startsWith('publicUrl'))
        expect(r.url.startsWith('https://data.example.com/base/s2sp/data/')).toBe(true);
      else if (r.case.startsWith('no address')) expect(r.url).toMatch(/^error: .*publicUrl/);
      else expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
    }
  });
});

/** Sends a tools/call over TCP with a forged `Host` and returns the advertised resource_url. */
function viaSocket(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_rows', arguments: { abstract_domains: 'kind' } },
    });
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host: 'evil.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.on('end', () => {
          const result = (
            JSON.parse(text) as { result: { structuredContent?: { resource_url?: string } } }
          ).result;
          resolve(result.structuredContent?.resource_url ?? `error: ${text}`);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** A memory store that remembers every key and table it was given (its "dump"). */
function recordingStore(inner: BodyStore): { store: BodyStore; keys: string[]; tables: string[] } {
  const keys: string[] = [];
  const tables: string[] = [];
  return {
    keys,
    tables,
    store: {
      put: (key: string, table: StoredTable, options) => {
        keys.push(key);
        tables.push(JSON.stringify(table));
        return inner.put(key, table, options);
      },
      take: (key, rowIds) => inner.take(key, rowIds),
      stats: () => inner.stats(),
      close: () => inner.close(),
    },
  };
}

/** Copies everything this process writes to stdout and stderr while it runs. */
function captureProcessOutput(): { text: () => string[]; stop: () => void } {
  const chunks: string[] = [];
  const originals = [process.stdout.write, process.stderr.write] as const;
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
  }
  let stopped = false;
  return {
    text: () => chunks,
    stop: () => {
      if (stopped) return;
      stopped = true;
      process.stdout.write = originals[0];
      process.stderr.write = originals[1];
    },
  };
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
