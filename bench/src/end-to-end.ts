import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BenchRow } from './report.js';
import { median, round } from './stats.js';

const SECTION = '5. End to end: the NWS task (fetch alerts, keep heat advisories, chart them)';
const run = promisify(execFile);

interface Flow {
  readonly ms: number;
  readonly agentBytes: number;
  readonly serverToServerBytes: number;
  readonly tokensRead: number;
  readonly tokensWritten: number;
}

/**
 * Runs `pnpm demo --json` (the real pipeline: NWS replay, weather-alerts, chart-consumer, the
 * official MCP SDK client as the agent) several times and compares the three ways of doing the
 * task: plain MCP (every row through the agent and the model), S2SP async and S2SP sync.
 */
export async function endToEndBenchmark(quick: boolean): Promise<BenchRow[]> {
  const main = fileURLToPath(new URL('../../apps/demo/dist/main.js', import.meta.url));
  if (!existsSync(main))
    throw new Error('apps/demo is not built: run `pnpm build` first (pnpm bench does).');
  const runs: { plain: Flow; async: Flow; sync: Flow }[] = [];
  for (let i = 0; i < (quick ? 1 : 5); i++) {
    const { stdout } = await run(
      process.execPath,
      [main, '--json', '--warmup', '--out', tmpdir()],
      {
        timeout: 120_000,
      },
    );
    runs.push(JSON.parse(stdout));
  }
  const out: BenchRow[] = [];
  for (const mode of ['plain', 'async', 'sync'] as const) {
    const flows = runs.map((r) => r[mode]);
    const first = flows[0] as Flow;
    out.push({
      section: SECTION,
      name: mode === 'plain' ? 'plain MCP' : `S2SP ${mode}`,
      how: `\`pnpm demo --json\` in a child process (NWS replay, weather-alerts, chart-consumer, SDK agent); ${runs.length} run${runs.length > 1 ? 's' : ''}, median`,
      values: {
        'wall ms (median)': round(median(flows.map((f) => f.ms))),
        'KiB through agent': round(first.agentBytes / 1024),
        'KiB server to server': round(first.serverToServerBytes / 1024),
        'model tokens read': first.tokensRead,
        'model tokens written': first.tokensWritten,
      },
    });
  }
  return out;
}
