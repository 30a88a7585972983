import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BenchRow } from './report.js';
import { round } from './stats.js';

const SECTION =
  '7c. @s2sp/proxy: reading a large plain result never holds its other clients, and hostile cells cost what plain ones do';

const require = createRequire(import.meta.url);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The proxy CLI on HTTP (port 0) in its own process, in front of the bench's table upstream. */
async function startProxy(): Promise<{ mcpUrl: string; child: ChildProcess }> {
  const main = join(dirname(require.resolve('@s2sp/proxy/package.json')), 'dist/main.js');
  const upstream = fileURLToPath(new URL('./table-upstream.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      main,
      '--port',
      '0',
      '--max-upstream-result-bytes',
      String(512 * 1024 * 1024),
      '--timeout',
      '900',
      '--',
      process.execPath,
      upstream,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const ready = /ready mcp=(\S+)/.exec(stderr);
      if (ready?.[1]) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`s2sp-proxy exited ${code}: ${stderr}`)));
  });
  return { mcpUrl, child };
}

/**
 * The proxy's event loop while it reads a large plain result (moved here from
 * packages/proxy/test/large-parse.test.ts, whose wall-clock bounds could fail on a busy
 * machine): while one client's plain call of a tool returning a large HTML or CSV table is read
 * (the proxy reads a plain result to learn its columns), another client asks `/s2sp/health`
 * again as soon as it is answered; the longest gap between two answers is the longest the proxy
 * kept it waiting, against the whole call (a parse in one go made it two thirds of the call or
 * more). Then cells of a million `&` against cells of a million `a`, the best of two calls each
 * (a search to the end of the text for each `&` made this thirty times as long). The linearity of
 * each parser on its own is a test (packages/proxy/src/tables/formats/parse-time.test.ts, CPU
 * time ratios).
 */
export async function proxyParseBenchmark(quick: boolean): Promise<BenchRow[]> {
  const { mcpUrl, child } = await startProxy();
  const client = new Client({ name: 'bench', version: '1' });
  const out: BenchRow[] = [];
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    const health = mcpUrl.replace(/\/mcp$/, '/s2sp/health');
    const long = { timeout: 900_000 };
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args }, undefined, long);
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    };
    const rows = quick ? 60_000 : 300_000;
    for (const [what, name, args] of [
      [
        `an HTML table of ${(rows * 4).toLocaleString('en-US')} cells`,
        'html',
        { cells: 4, rows, size: 3, fill: 'abc' },
      ],
      [`a CSV table of about ${quick ? 2 : 10} MB of short rows`, 'csv', { mb: quick ? 2 : 10 }],
    ] as const) {
      let done = false;
      const answered: number[] = [];
      const other = (async () => {
        while (!done) {
          const response = await fetch(health);
          await response.text();
          if (response.status !== 200) throw new Error(`health answered ${response.status}`);
          answered.push(performance.now());
          await sleep(5);
        }
      })();
      const start = performance.now();
      answered.push(start);
      await call(name, args);
      const took = performance.now() - start;
      done = true;
      await other;
      const longest = Math.max(...answered.slice(1).map((at, i) => at - (answered[i] as number)));
      out.push({
        section: SECTION,
        name: `a plain call of ${what}: the other client's longest wait`,
        values: {
          'call ms': round(took),
          'longest wait ms': round(longest),
          'longest wait / call': round(longest / took),
        },
        target: 'longest wait < half the call',
        met: longest < took / 2,
      });
    }

    const timed = async (fill: string) => {
      const start = performance.now();
      await call('html', { cells: 4, size: 1_000_000, fill });
      return performance.now() - start;
    };
    await timed('a');
    const letters = Math.min(await timed('a'), await timed('a'));
    const ampersands = Math.min(await timed('&'), await timed('&'));
    out.push({
      section: SECTION,
      name: 'an HTML table of 4 cells of a million `&`, against a million `a` (best of two calls each)',
      values: {
        '`a` ms': round(letters),
        '`&` ms': round(ampersands),
        ratio: round(ampersands / letters),
      },
      target: '`&` < 6 × `a`',
      met: ampersands < letters * 6,
    });
  } finally {
    await client.close().catch(() => {});
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  return out;
}
