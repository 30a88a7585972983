/**
 * The servers the conformance suite runs against, each started as the demo and the integration
 * tests start it, on 127.0.0.1 port 0: weather-alerts on its offline NWS replay, the two consumers
 * allowed to fetch from it, and s2sp-proxy in front of `@modelcontextprotocol/server-everything`;
 * and a server with the suite's own tools (fixtures/suite-server.mjs) directly and with s2sp-proxy
 * in front, both against one baseline.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChartServer } from '@s2sp/app-chart-consumer';
import { createSqlServer } from '@s2sp/app-sql-consumer';
import { createWeatherServer, startNwsReplayServer } from '@s2sp/app-weather-alerts';
import { createS2SPProxy } from '@s2sp/proxy';
import { type ListeningServer, silentLogger } from '@s2sp/server';

/** Where the proxy's upstream is (`createS2SPProxy`'s `upstream` option). */
type UpstreamTarget = Parameters<typeof createS2SPProxy>[0]['upstream'];

/** A running server under test; dispose it to stop everything it started. */
export interface RunningTarget extends AsyncDisposable {
  /** Its Streamable HTTP endpoint. */
  readonly mcpUrl: string;
}

/**
 * Which test file runs a target's suites: the runs are split into files so that vitest's workers
 * share them (one file of every run was the suite's longest by far).
 */
export type TargetGroup = 'apps' | 'proxy' | 'modern-upstream';

/** A server under test and its baseline. */
export interface Target {
  readonly name: string;
  /** The test file that runs its suites (`<group>.test.ts`). */
  readonly group: TargetGroup;
  /** The baseline file of 0.1.16's scenarios (see baseline.ts); none: it serves no 2025 client. */
  readonly baseline?: string;
  /** The baseline file of the 0.2 line's 2026-07-28 scenarios. */
  readonly modernBaseline: string;
  start(): Promise<RunningTarget>;
}

const LOOPBACK = { port: 0, host: '127.0.0.1' } as const;

/** Runs `body` with a list of closers; on failure closes what was started, newest first. */
async function starting(
  body: (closers: (() => Promise<void>)[]) => Promise<string>,
): Promise<RunningTarget> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => {});
  };
  try {
    return { mcpUrl: await body(closers), [Symbol.asyncDispose]: close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** weather-alerts on the NWS replay; returns its listening address. */
async function startWeather(closers: (() => Promise<void>)[]): Promise<ListeningServer> {
  const replay = await startNwsReplayServer(LOOPBACK);
  closers.push(() => replay.close());
  const weather = createWeatherServer({ nws: { baseUrl: replay.url }, logger: silentLogger });
  const listening = await weather.listen(LOOPBACK);
  closers.push(() => weather.close());
  return listening;
}

/** s2sp-proxy in front of a stdio upstream that this Node runs with `args`, or of an HTTP one. */
function startProxy(args: string[] | (() => Promise<RunningTarget>)): Promise<RunningTarget> {
  return starting(async (closers) => {
    let upstream: UpstreamTarget = { kind: 'stdio', command: process.execPath, args: [] };
    if (Array.isArray(args)) upstream = { ...upstream, args };
    else {
      const started = await args();
      closers.push(async () => started[Symbol.asyncDispose]());
      upstream = { kind: 'http', url: started.mcpUrl };
    }
    const proxy = createS2SPProxy({ upstream, logger: silentLogger });
    closers.push(() => proxy.close());
    await proxy.start();
    return (await proxy.listen(LOOPBACK)).mcpUrl;
  });
}

const SUITE_SERVER = fileURLToPath(new URL('./fixtures/suite-server.mjs', import.meta.url));
const MODERN_SUITE_SERVER = fileURLToPath(
  new URL('./fixtures/modern-suite-server.mjs', import.meta.url),
);

/** A suite server (`fixture`) on Streamable HTTP, in a child process of its own. */
function startSuiteServer(fixture = SUITE_SERVER): Promise<RunningTarget> {
  return starting(async (closers) => {
    const child = spawn(process.execPath, [fixture, '--http'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    closers.push(async () => {
      child.kill();
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`suite-server exited (${code})`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        const found = /port (\d+)/.exec(chunk.toString());
        if (found) resolve(Number(found[1]));
      });
    });
    return `http://127.0.0.1:${port}/mcp`;
  });
}

const require = createRequire(import.meta.url);
const everythingManifest = require.resolve('@modelcontextprotocol/server-everything/package.json');

const baselineFile = (name: string) =>
  fileURLToPath(new URL(`../baselines/${name}.yaml`, import.meta.url));

/**
 * A target whose baselines are `baselines/<baseline>.yaml` and
 * `baselines/2026-07-28/<modern>.yaml` (default: its name); `baseline: null` for a server that
 * serves no 2025 client.
 */
const target = (
  name: string,
  group: TargetGroup,
  start: () => Promise<RunningTarget>,
  { baseline = name as string | null, modern = name } = {},
): Target => ({
  name,
  group,
  ...(baseline !== null && { baseline: baselineFile(baseline) }),
  modernBaseline: baselineFile(`2026-07-28/${modern}`),
  start,
});

/** Every server under test. */
export const TARGETS: readonly Target[] = [
  target('weather-alerts', 'apps', () =>
    starting(async (closers) => (await startWeather(closers)).mcpUrl),
  ),
  target('chart-consumer', 'apps', () =>
    starting(async (closers) => {
      const weather = await startWeather(closers);
      const chart = createChartServer({ allowedOrigins: [weather.url], logger: silentLogger });
      const listening = await chart.server.listen(LOOPBACK);
      closers.push(() => chart.server.close());
      chart.setBaseUrl(listening.url);
      return listening.mcpUrl;
    }),
  ),
  target('sql-consumer', 'apps', () =>
    starting(async (closers) => {
      const weather = await startWeather(closers);
      const sql = createSqlServer({ allowedOrigins: [weather.url], logger: silentLogger });
      const listening = await sql.server.listen(LOOPBACK);
      closers.push(() => sql.server.close());
      return listening.mcpUrl;
    }),
  ),
  target('s2sp-proxy', 'proxy', () =>
    startProxy([join(dirname(everythingManifest), 'dist/index.js'), 'stdio']),
  ),
  // The suite server directly and through the proxy, on one baseline: the proxy is transparent.
  target('suite-server', 'proxy', startSuiteServer),
  target('s2sp-proxy-suite-server', 'proxy', () => startProxy([SUITE_SERVER]), {
    baseline: 'suite-server',
  }),
  // A server that serves only 2026-07-28 (SDK v2, `legacy: 'reject'`) directly, and through the
  // proxy in front of it on stdio and on HTTP, on one baseline: the proxy speaks that revision
  // upstream and relays its input rounds to a 2026-07-28 client round for round.
  // In front of it the proxy serves 2025 clients too: 0.1.16's scenarios, bridged to its rounds.
  target('modern-suite-server', 'modern-upstream', () => startSuiteServer(MODERN_SUITE_SERVER), {
    baseline: null,
  }),
  target(
    's2sp-proxy-modern-suite-server',
    'modern-upstream',
    () => startProxy([MODERN_SUITE_SERVER]),
    {
      modern: 'modern-suite-server',
    },
  ),
  target(
    's2sp-proxy-modern-suite-server-http',
    'modern-upstream',
    () => startProxy(() => startSuiteServer(MODERN_SUITE_SERVER)),
    { baseline: 's2sp-proxy-modern-suite-server', modern: 'modern-suite-server' },
  ),
];
