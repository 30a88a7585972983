/**
 * The official MCP conformance suite (`conformance server`, every active scenario) against each
 * app and the proxy, for the test files of each {@link TargetGroup}. A scenario that fails outside the app's baseline fails here, and so does a
 * baseline entry that now passes (remove it) or names no scenario the suite ran (a typo). Each
 * entry's reason is checked against the running app: "needs tool X" holds only while the app
 * has no tool X.
 */
import { connectSdkClient } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BaselineEntry, readBaseline, serverLacks } from './baseline.js';
import { type ConformanceRun, describeFailures, runConformance } from './conformance-cli.js';
import { type RunningTarget, TARGETS, type TargetGroup } from './targets.js';

// 0.1.16's active scenarios (2025-11-25), and the 0.2 line's for 2026-07-28 with baselines of
// their own (`baselines/2026-07-28/`).
const RUNS = [
  // Not modern-suite-server directly: it serves 2026-07-28 only (a 2025 `initialize` is refused).
  ...TARGETS.flatMap(({ baseline, ...target }) =>
    baseline === undefined
      ? []
      : [{ ...target, baseline, suite: '0.1.16', cli: 'stable' as const }],
  ),
  // Not suite-server directly: a 2025-era fixture, it serves no 2026-07-28 client (every
  // scenario fails "Server not initialized"); through the proxy it is served in that revision.
  ...TARGETS.filter((target) => target.name !== 'suite-server').map((target) => ({
    ...target,
    baseline: target.modernBaseline,
    suite: '0.2.0-alpha.12 --spec-version 2026-07-28',
    cli: 'next' as const,
    specVersion: '2026-07-28',
  })),
];

/** Runs both suites against every target of `group`, each run in a describe of its own. */
export function describeConformance(group: TargetGroup): void {
  describe.each(RUNS.filter((run) => run.group === group))(
    'MCP conformance suite $suite against $name',
    conformanceRun,
  );
}

function conformanceRun(target: (typeof RUNS)[number]): void {
  let running: RunningTarget | undefined;
  let run: ConformanceRun;
  let baseline: BaselineEntry[];

  beforeAll(async () => {
    baseline = await readBaseline(target.baseline);
    running = await target.start();
    run = await runConformance({
      url: running.mcpUrl,
      expectedFailures: target.baseline,
      cli: target.cli,
      ...('specVersion' in target && { specVersion: target.specVersion }),
    });
  });
  afterAll(() => running?.[Symbol.asyncDispose]());

  const listed = (scenario: string) => baseline.some((entry) => entry.scenario === scenario);

  it('fails no scenario outside the baseline', () => {
    expect(run.scenarios.length, run.output.slice(-4000)).toBeGreaterThanOrEqual(20);
    const unexpected = run.scenarios.filter((s) => s.failed && !listed(s.scenario));
    expect(unexpected.map(describeFailures).join('\n')).toBe('');
  });

  it('passes no scenario of the baseline (a fixed one leaves it)', () => {
    const stale = run.scenarios.filter((s) => !s.failed && listed(s.scenario));
    expect(stale.map((s) => s.scenario)).toEqual([]);
  });

  it('lists only scenarios the suite runs', () => {
    const ran = new Set(run.scenarios.map((s) => s.scenario));
    expect(baseline.filter((entry) => !ran.has(entry.scenario))).toEqual([]);
  });

  it('agrees with the CLI, which exits 0 on the same baseline', () => {
    expect(run.exitCode, run.output.slice(-4000)).toBe(0);
  });

  it('lists a scenario for something the app lacks only while it lacks it', async () => {
    // A 2026-07-28-only server is asked in that revision (SDK v2, negotiating).
    const { client } = await connectSdkClient(
      running?.mcpUrl ?? '',
      'specVersion' in target ? { sdk: 2, era: 'auto' } : { sdk: 1, era: 'legacy' },
    );
    try {
      const present: string[] = [];
      for (const entry of baseline)
        if ('needs' in entry && !(await serverLacks(client as never, entry.needs)))
          present.push(`${entry.scenario}: the app has ${entry.needs.kind} ${entry.needs.name}`);
      expect(present).toEqual([]);
    } finally {
      await client.close();
    }
  });
}
