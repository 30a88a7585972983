import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The demo task across three processes — the agent, weather-alerts and chart-consumer, each with
// an in-memory span exporter (trace/otel-preload.mjs) — must be one trace: the agent's context
// rides to each tool in `_meta.traceparent`, and chart-consumer's to the data plane in the
// `traceparent` header.

const preload = fileURLToPath(new URL('./trace/otel-preload.mjs', import.meta.url));
const agent = fileURLToPath(new URL('./trace/trace-agent.mjs', import.meta.url));
const weatherMain = fileURLToPath(new URL('../../weather-alerts/dist/main.js', import.meta.url));
const chartMain = fileURLToPath(new URL('../../chart-consumer/dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 's2sp-trace-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (!process.env.KEEP_SPANS) rmSync(dir, { recursive: true, force: true });
});

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  status: number;
}

function start(script: string, name: string, args: string[], env: Record<string, string>) {
  const spans = join(dir, `${name}.json`);
  const child = spawn(process.execPath, ['--import', preload, script, ...args], {
    env: { ...process.env, ...env, S2SP_TEST_SPANS_FILE: spans },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    spans: () => JSON.parse(readFileSync(spans, 'utf8')) as ExportedSpan[],
    stdout: () => stdout,
    async waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
      for (let i = 0; i < 600; i++) {
        const match = stderr.match(pattern);
        if (match) return match;
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${name} did not print ${pattern}: ${stderr}`);
    },
    async stop(): Promise<number | null> {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    exited: () => exited,
  };
}

describe('tracing across the planes', () => {
  it('shows the demo task as one trace from get_alerts to draw_chart’s fetch, over three processes', async () => {
    for (const file of [weatherMain, chartMain])
      if (!existsSync(file)) throw new Error(`${file} is missing: run \`pnpm build\` first`);
    const weather = start(weatherMain, 'weather', ['--replay'], { PORT: '0', HOST: '127.0.0.1' });
    const [, weatherMcp = '', dataPlane = ''] = await weather.waitFor(
      /weather-alerts: ready mcp=(\S+) data_plane=(\S+)/,
    );
    const chart = start(chartMain, 'chart', [], {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      S2SP_ALLOWED_ORIGINS: new URL(dataPlane).origin,
    });
    const [, chartOrigin = ''] = await chart.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/charts/);
    const driver = start(agent, 'agent', [weatherMcp, `${chartOrigin}/mcp`], {});
    expect(await driver.exited()).toBe(0);
    const { alerts, chart: drawn } = JSON.parse(driver.stdout()) as {
      alerts: { isError?: boolean };
      chart: { isError?: boolean };
    };
    expect([alerts.isError ?? false, drawn.isError ?? false]).toEqual([false, false]);
    expect(await weather.stop()).toBe(0);
    expect(await chart.stop()).toBe(0);

    const spans = [...driver.spans(), ...weather.spans(), ...chart.spans()];
    const one = (name: string) => {
      const found = spans.filter((span) => span.name === name);
      expect(found.map((span) => span.name)).toEqual([name]);
      return found[0] as ExportedSpan;
    };
    const root = one('demo task');
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([root.traceId]));
    const getAlerts = one('tools/call get_alerts');
    const put = one('s2sp.store.put');
    const drawChart = one('tools/call draw_chart');
    const fetchSpan = spans.find(
      (span) => span.name === 'POST /s2sp/data/{token}' && span.attributes['server.address'],
    );
    const redemption = spans.find(
      (span) => span.name === 'POST /s2sp/data/{token}' && span.attributes['http.route'],
    );
    const take = one('s2sp.store.take');
    // The parent links: agent → get_alerts → store put; agent → draw_chart → fetch → redemption → take.
    expect(root.parentSpanId).toBeUndefined();
    expect(getAlerts.parentSpanId).toBe(root.spanId);
    expect(put.parentSpanId).toBe(getAlerts.spanId);
    expect(drawChart.parentSpanId).toBe(root.spanId);
    expect(fetchSpan?.parentSpanId).toBe(drawChart.spanId);
    expect(redemption?.parentSpanId).toBe(fetchSpan?.spanId);
    expect(take.parentSpanId).toBe(redemption?.spanId);
    // What the spans say about the work.
    expect(getAlerts.attributes).toMatchObject({ 's2sp.role': 'resource', 's2sp.mode': 'async' });
    expect(getAlerts.attributes['s2sp.tokens_saved']).toBeGreaterThan(0);
    expect(redemption?.attributes).toMatchObject({
      'http.response.status_code': 200,
      's2sp.outcome': 'ok',
    });
    expect(redemption?.attributes['s2sp.bytes']).toBeGreaterThan(0);
    expect(take.attributes['s2sp.found']).toBe(true);
    // No span holds a token: no resource_url, no data-plane path with one.
    expect(JSON.stringify(spans)).not.toMatch(/\/s2sp\/data\/[A-Za-z0-9_-]{43}/);
  });
});
