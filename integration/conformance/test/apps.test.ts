/**
 * The official MCP conformance suite (`conformance server`, every active scenario) against each
 * app and the proxy. A scenario that fails outside the app's baseline fails here, and so does a
 * baseline entry that now passes (remove it) or names no scenario the suite ran (a typo). Each
 * entry's reason is checked against the running app: "needs tool X" holds only while the app
 * has no tool X.
 */
import { connectMcpClient } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BaselineEntry, readBaseline, serverLacks } from './baseline.js';
import { type ConformanceRun, describeFailures, runConformance } from './conformance-cli.js';
import { type RunningTarget, TARGETS } from './targets.js';

describe.each(TARGETS)('MCP conformance suite against $name', (target) => {
  let running: RunningTarget | undefined;
  let run: ConformanceRun;
  let baseline: BaselineEntry[];

  beforeAll(async () => {
    baseline = await readBaseline(target.baseline);
    running = await target.start();
    run = await runConformance({ url: running.mcpUrl, expectedFailures: target.baseline });
  });
  afterAll(() => running?.[Symbol.asyncDispose]());

  const listed = (scenario: string) => baseline.some((entry) => entry.scenario === scenario);

  it('fails no scenario outside the baseline', () => {
    expect(run.scenarios.length, run.output.slice(-4000)).toBeGreaterThan(20);
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
    await using agent = await connectMcpClient(running?.mcpUrl ?? '');
    const present: string[] = [];
    for (const entry of baseline)
      if ('needs' in entry && !(await serverLacks(agent.client, entry.needs)))
        present.push(`${entry.scenario}: the app has ${entry.needs.kind} ${entry.needs.name}`);
    expect(present).toEqual([]);
  });
});
