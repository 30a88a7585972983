// Figure 23.5: weather-alerts and s2sp-proxy on one Redis. Both run as their
// command-line programs, configured by S2SP_REDIS_PREFIX and --redis-prefix. With distinct
// prefixes a weather-alerts resource_url does not redeem at the proxy's data plane and
// weather://cache counts only the app's own entries; with the same prefix the proxy warns at
// start, naming the prefix and the other app.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { S2SPResultSchema } from '@s2sp/core';
import { connectMcpClient, startRedis } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const WEATHER = path('../../apps/weather-alerts/bin/s2sp-weather-alerts.js');
const PROXY = path('../../packages/proxy/bin/s2sp-proxy.js');
const TABLE_SERVER = path('../../packages/proxy/test/fixtures/table-server.mjs');
const READY = /ready mcp=(\S+) data_plane=(\S+)/;

interface Program extends AsyncDisposable {
  readonly mcpUrl: string;
  readonly dataPlane: string;
  /** Everything written to standard error so far. */
  stderr(): string;
}

/** Starts a program on loopback with a clean S2SP environment and waits for its ready line. */
async function start(args: string[], env: Record<string, string>): Promise<Program> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(NWS_|S2SP_|REDIS_URL$|PORT$|HOST$|LOG_LEVEL$)/.test(name),
    ),
  );
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...clean, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 20 s:\n${stderr}`)), 20_000);
    const check = () => {
      const found = stderr.match(READY);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stderr?.on('data', check);
    child.once('exit', (code) => reject(new Error(`exited (${code}):\n${stderr}`)));
  });
  return {
    mcpUrl: match[1] as string,
    dataPlane: match[2] as string,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const weatherArgs = ['--replay'];
const proxyArgs = (redisUrl: string, prefix: string) => [
  PROXY,
  '--port',
  '0',
  '--redis',
  redisUrl,
  '--redis-prefix',
  prefix,
  '--table-tool',
  'rows',
  '--log-level',
  'warn',
  '--',
  process.execPath,
  TABLE_SERVER,
];

async function weatherToken(mcpUrl: string): Promise<string> {
  await using agent = await connectMcpClient(mcpUrl);
  const result = await agent.call('get_alerts', { area: 'TX', abstract_domains: 'event' });
  expect(result.isError).toBeFalsy();
  return S2SPResultSchema.parse(result.structuredContent).resource_url as string;
}

async function cacheEntries(mcpUrl: string): Promise<number> {
  await using agent = await connectMcpClient(mcpUrl);
  const resource = await agent.client.readResource({ uri: 'weather://cache' });
  const first = resource.contents[0] as { text: string };
  return (JSON.parse(first.text) as { entries: number }).entries;
}

async function redeemAt(dataPlane: string, resourceUrl: string): Promise<number> {
  const token = new URL(resourceUrl).pathname.split('/').pop() as string;
  const response = await fetch(`${dataPlane.replace(/\/$/, '')}/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  await response.arrayBuffer();
  return response.status;
}

const WARNING = /another app already uses this key prefix/;

describe('figure 23.5: a Redis key prefix per app', () => {
  it('23.5 distinct prefixes keep weather-alerts and the proxy apart; the same prefix is warned about', async () => {
    await using redis = await startRedis({ spawn: true });
    await using weather = await start([WEATHER, ...weatherArgs], {
      PORT: '0',
      REDIS_URL: redis.url,
      S2SP_REDIS_PREFIX: 'weather:',
      LOG_LEVEL: 'warn',
    });

    // Distinct prefixes: the proxy stores a table of its own, then is handed weather's token.
    let distinct: { status: number; entries: number; warned: boolean };
    {
      await using proxy = await start(proxyArgs(redis.url, 'proxy:'), {});
      await using agent = await connectMcpClient(proxy.mcpUrl);
      const own = await agent.call('rows', { abstract_domains: 'city' });
      expect(own.isError).toBeFalsy();
      const resourceUrl = await weatherToken(weather.mcpUrl);
      const entries = await cacheEntries(weather.mcpUrl);
      const status = await redeemAt(proxy.dataPlane, resourceUrl);
      // The token was not used up by the refused attempt: weather's own data plane still serves it.
      expect(await redeemAt(weather.dataPlane, resourceUrl)).toBe(200);
      distinct = { status, entries, warned: WARNING.test(proxy.stderr()) };
    }

    // The same prefix: the proxy finds weather-alerts' name in weather:owner and warns.
    let shared: { status: number; warning: string };
    {
      await using proxy = await start(proxyArgs(redis.url, 'weather:'), {});
      const deadline = Date.now() + 10_000;
      while (!WARNING.test(proxy.stderr()) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const resourceUrl = await weatherToken(weather.mcpUrl);
      const status = await redeemAt(proxy.dataPlane, resourceUrl);
      const warning =
        proxy
          .stderr()
          .split('\n')
          .find((line) => WARNING.test(line)) ?? '';
      shared = { status, warning };
    }
    const warnedRight =
      shared.warning.includes('keyPrefix=weather:') &&
      shared.warning.includes('otherOwner=weather-alerts') &&
      !shared.warning.includes('/s2sp/data/');
    const weatherWarned = WARNING.test(weather.stderr());

    recordFigure({
      id: '23.5',
      title:
        'weather-alerts (S2SP_REDIS_PREFIX=weather:) and s2sp-proxy on one redis-server. Prefixes distinct (--redis-prefix proxy:; one proxy entry stored): a weather resource_url POSTed to the proxy data plane — status / weather://cache entries / warning logged. Same prefix (--redis-prefix weather:): the proxy’s start-up warning names the prefix and weather-alerts / the same redemption’s status',
      value: `${distinct.status} / ${distinct.entries} / ${distinct.warned || weatherWarned ? 'yes' : 'no'}; ${warnedRight ? 'yes' : 'no'} / ${shared.status}`,
      target: '404 / 1 / no; yes / 200 (why the warning exists)',
      met:
        distinct.status === 404 &&
        distinct.entries === 1 &&
        !distinct.warned &&
        !weatherWarned &&
        warnedRight &&
        shared.status === 200,
    });
    expect(distinct).toEqual({ status: 404, entries: 1, warned: false });
    expect(weatherWarned).toBe(false);
    expect(shared.warning).toMatch(WARNING);
    expect(shared.warning).toContain('keyPrefix=weather:');
    expect(shared.warning).toContain('owner=s2sp-proxy');
    expect(shared.warning).toContain('otherOwner=weather-alerts');
    expect(shared.status).toBe(200);
  });
});
