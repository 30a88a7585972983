import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { DemoReport, FlowReport } from '../src/agent.js';
import type { SeverityReport } from '../src/severity-task.js';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 's2sp-demo-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function pngSize(file: string): { width: number; height: number } {
  const png = readFileSync(file);
  expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * A flow's receipt: the server's estimate within ±10% of the tokenizer's count of the same saving,
 * and that saving less than everything the plain flow read.
 */
function expectHonestReceipt(flow: FlowReport, plain: FlowReport): void {
  const { tokensSaved, countedSaved } = flow.receipt;
  expect(countedSaved).toBeGreaterThan(0);
  expect(countedSaved).toBeLessThan(plain.tokensRead);
  expect(Math.abs(tokensSaved / countedSaved - 1)).toBeLessThanOrEqual(0.1);
}

describe('pnpm demo', () => {
  it('runs the whole pipeline offline and reports tokens, bytes and the chart', async () => {
    if (!existsSync(main))
      throw new Error('apps/demo/dist is missing: run `pnpm build` first (pnpm test does).');
    const { stdout, stderr } = await run(process.execPath, [main, '--json', '--out', out], {
      timeout: 60_000,
    });
    expect(stderr).toMatch(/NWS replay server \(recorded NWS data, offline\)/);
    const report = JSON.parse(stdout) as DemoReport & { severity: SeverityReport; seconds: number };

    // The recorded Texas alerts: 19 in the replayed national set, 13 of them heat advisories.
    expect(report).toMatchObject({
      area: 'TX',
      event: 'Heat',
      live: false,
      rows: 19,
      columns: 30,
      matched: 13,
    });
    for (const flow of [report.plain, report.async, report.sync]) expect(flow.rowsCharted).toBe(13);

    // The model's view: S2SP reads and writes a small fraction of what plain MCP does.
    expect(report.async.tokensRead).toBeLessThan(report.plain.tokensRead / 10);
    expect(report.sync.tokensRead).toBeLessThan(report.plain.tokensRead / 10);
    // The servers' savings receipts (_meta "s2sp/receipt") reach the agent in both modes, and
    // agree with the tokenizer's count of the same saving within the estimator's ±10%.
    expect(report.plain.receipt).toEqual({ tokensSaved: 0, countedSaved: 0 });
    for (const flow of [report.async, report.sync]) expectHonestReceipt(flow, report.plain);
    expect([report.async.emptyReads, report.sync.emptyReads]).toEqual([0, 0]);
    expect(report.async.tokensWritten).toBeLessThan(report.plain.tokensWritten / 10);

    // Only async moves the body server to server; sync carries it through the agent instead.
    expect(report.async.serverToServerBytes).toBeGreaterThan(10_000);
    expect(report.plain.serverToServerBytes).toBe(0);
    expect(report.sync.serverToServerBytes).toBe(0);
    expect(report.sync.agentBytes).toBeGreaterThan(report.async.agentBytes);

    // The PNG it wrote is a real chart.
    expect(report.async.chartFile).toBe(join(out, 'chart-TX-async.png'));
    const size = pngSize(report.async.chartFile);
    expect(size.width).toBeGreaterThan(1200);
    expect(size.height).toBeGreaterThan(800);
    expect(readFileSync(report.async.chartFile).byteLength).toBe(report.async.pngBytes);
    expect(report.seconds).toBeLessThan(60);

    // Task 2: the severity counts of the 19 recorded Texas alerts, answered by query_tables in
    // DuckDB and charted from its answer's resource_url; the model reads and writes a sliver.
    const { severity } = report;
    expect(severity.counts).toEqual({ Moderate: 17, Minor: 1, Severe: 1 });
    expect(severity.rowsCharted).toBe(3);
    // The chart's bars are the counts (value_column "n"), not one bar of height 1 per severity.
    expect(severity.bars).toEqual({ Moderate: 17, Minor: 1, Severe: 1 });
    const total = (t: { tokensRead: number; tokensWritten: number }) =>
      t.tokensRead + t.tokensWritten;
    expect(total(severity.sqlTables)).toBeLessThan(total(severity.plain) / 20);
    expect(severity.sqlTables.calls).toBe(3);
    // Paging read one page here (then draw_chart): the report's "paging is cheaper while the
    // table fits one page" is the case it prints.
    expect(severity.paging.calls).toBe(2);
    expect(total(severity.paging)).toBeLessThan(total(severity.sqlTables));
  });

  it('reports one receipt, within the plain read, when the filter matches nothing (CA, Heat)', async () => {
    const { stdout } = await run(process.execPath, [main, '--json', '--area', 'CA', '--out', out], {
      timeout: 60_000,
    });
    const report = JSON.parse(stdout) as DemoReport;
    expect(report).toMatchObject({ area: 'CA', rows: 10, matched: 0 });
    for (const flow of [report.plain, report.async, report.sync]) expect(flow.rowsCharted).toBe(10);
    // The flows asked twice (the empty filtered result, then every row's abstract); the receipt is
    // the second result's alone, so the saving it counts is less than the plain flow's read.
    expect([report.async.emptyReads, report.sync.emptyReads]).toEqual([1, 1]);
    for (const flow of [report.async, report.sync]) expectHonestReceipt(flow, report.plain);
  });

  it('prints a readable report', async () => {
    const { stdout } = await run(
      process.execPath,
      [main, '--area', 'ca', '--event', 'wind', '--out', out],
      { timeout: 60_000 },
    );
    expect(stdout).toContain('S2SP demo: NWS alerts for CA (recorded NWS data, replayed offline)');
    expect(stdout).toMatch(/filter\s+6 alerts match "wind"/);
    expect(stdout).toMatch(/S2SP async\s+[\d,]+\s+[\d,]+\s+9\d\.\d% fewer/);
    expect(stdout).toMatch(/server to server, async\s+[\d.]+ KiB/);
    expect(stdout).toContain(join(out, 'chart-CA-async.png'));
    expect(stdout).toMatch(/Task 2: how many alerts of each severity, and chart the counts/);
    expect(stdout).toMatch(/S2SP query_tables\s+[\d,]+\s+[\d,]+\s+3\s+\d+\.\d% of plain/);
    // One receipt figure per mode, each less than the plain flow's read; no ratio to paging and no
    // target the run does not measure.
    const plainRead = Number(/plain MCP\s+([\d,]+)/.exec(stdout)?.[1]?.replaceAll(',', ''));
    const saved = /receipt\s+~([\d,]+) tokens saved \(async\), ~([\d,]+) \(sync\)/
      .exec(stdout)
      ?.slice(1)
      .map((figure) => Number(figure.replaceAll(',', '')));
    expect(saved).toHaveLength(2);
    for (const figure of saved ?? []) expect(figure).toBeLessThan(plainRead);
    expect(stdout).not.toMatch(/% of paging|target/);
    // The servers stop with the demo, so the report names the flag that keeps them up instead of
    // a chart URL that would already be dead.
    expect(stdout).not.toMatch(/http:\/\/127\.0\.0\.1:\d+\/charts/);
    expect(stdout).toContain('to open the chart page, run pnpm demo --keep-running');
  });

  it('with --keep-running, serves the chart page it prints until SIGINT', async () => {
    const child = spawn(process.execPath, [main, '--keep-running', '--out', out], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    try {
      let stdout = '';
      const chartUrl = await new Promise<string>((resolveUrl, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no chart URL in 60 s:\n${stdout}`)),
          60_000,
        );
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /^\s+(http:\/\/127\.0\.0\.1:\d+\/charts\/\S+)$/m.exec(stdout);
          if (match?.[1]) {
            clearTimeout(timer);
            resolveUrl(match[1]);
          }
        });
      });
      const png = await fetch(`${chartUrl}.png`);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      expect([...new Uint8Array(await png.arrayBuffer()).subarray(0, 4)]).toEqual([
        137, 80, 78, 71,
      ]);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it('fails with a clear message and a non-zero exit for a bad area or option', async () => {
    const bad = await run(process.execPath, [main, '--area', 'XX', '--out', out]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(bad?.code).toBe(1);
    expect(bad?.stderr).toMatch(/demo failed: get_alerts failed: "XX" is not an NWS area code/);
    const option = await run(process.execPath, [main, '--colour']).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(option?.code).toBe(2);
    expect(option?.stderr).toMatch(/Unknown option '--colour'.*\n\nUsage: pnpm demo/s);
  });
});
