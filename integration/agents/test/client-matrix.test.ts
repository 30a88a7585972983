/**
 * Real MCP clients from npm against the real apps, no LLM: each client lists the tools and calls
 * them through its own API, and the test measures what reaches the model through that client's
 * own conversion of tool results (MCP SDK: the text blocks; AI SDK: the tool's `toModelOutput`;
 * LangChain: the `ToolMessage` content; OpenAI Agents: the function tool's output; Mastra: the
 * tool result as JSON; Inspector CLI: what it prints). Every adapter of `@s2sp/client` (the
 * registry: each brings its runs in `adapters/<name>.ts`) runs at its framework's current major
 * and at the lowest version `@s2sp/client` claims (from `lowest/`), in each era it can negotiate
 * (`McpEra`). Three runs each: plain, async chain (get_alerts → draw_chart with a
 * resource_url) and sync chain through this project's adapter. Optional arguments are sent as
 * `null`, as strict-schema clients do.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { expectedRevision } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedVersion, loadAdapters, type MatrixRun } from './adapter-runs.js';
import { allFragments } from './checks.js';
import {
  ABSTRACT_DOMAINS,
  AREA,
  KEEP_EVENT,
  leaked,
  type Pipeline,
  startPipeline,
} from './pipeline.js';

const require = createRequire(import.meta.url);

const inspectorCli = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');
const run = promisify(execFile);

/** The MCP Inspector's CLI: what it prints. A client without an adapter: no sync run. */
const inspector: MatrixRun = {
  name: `MCP Inspector CLI ${installedVersion('@modelcontextprotocol/inspector-cli')}`,
  version: undefined,
  era: 'legacy',
  async open(urls) {
    return {
      revisions: [],
      async call(server, name, args) {
        const toolArgs = Object.entries(args)
          .filter(([, value]) => value !== null)
          .map(
            ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
          );
        const { stdout } = await run(
          process.execPath,
          [
            inspectorCli,
            urls[server],
            '--transport',
            'http',
            '--method',
            'tools/call',
            '--tool-name',
            name,
            '--tool-arg',
            ...toolArgs,
            // 1.0.3 finds its own package.json relative to the working directory.
          ],
          { cwd: dirname(inspectorCli) },
        );
        return stdout;
      },
      async close() {},
    };
  },
};

/** The S2SP result (abstract rows, resource_url) in whatever a client made of it. */
function findS2SP(
  value: unknown,
  depth = 0,
): { abstract: Record<string, unknown>[]; resource_url: string } | undefined {
  if (depth > 6) return undefined;
  if (typeof value === 'string') {
    try {
      return findS2SP(JSON.parse(value), depth + 1);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findS2SP(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.abstract) && typeof o.resource_url === 'string')
      return o as { abstract: Record<string, unknown>[]; resource_url: string };
    for (const item of Object.values(o)) {
      const found = findS2SP(item, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** draw_chart's optional arguments as a strict-schema client sends them when unused. */
const NULLS = {
  group_by: null,
  title: null,
  include_image: null,
  body_data: null,
  column_mapping: null,
};

let pipeline: Pipeline;
let fragments: Set<string>;
const measured: string[] = [];
beforeAll(async () => {
  pipeline = await startPipeline();
  fragments = allFragments(pipeline);
});
afterAll(async () => {
  await pipeline[Symbol.asyncDispose]();
  process.stderr.write(`characters reaching the model per client:\n${measured.join('\n')}\n`);
});

// Every adapter's clients at the framework's current major and at the lowest version
// @s2sp/client claims, each in the eras it can negotiate; `auto` speaks 2026-07-28 as soon as the
// servers serve it. Then clients without an adapter.
const drivers: MatrixRun[] = [
  ...(await loadAdapters()).flatMap(({ runs }) =>
    Array.isArray(runs.clientMatrix) ? runs.clientMatrix : [],
  ),
  inspector,
];

/** Most characters of the abstract result: the Inspector prints it whole, indented, for a person. */
const maxAbstractChars = (driver: MatrixRun) => (driver === inspector ? 14_000 : 6_000);

describe.each(drivers.map((driver) => [`${driver.name}, era ${driver.era}`, driver] as const))(
  '%s',
  (_title, driver) => {
    const urls = () => ({ weather: pipeline.weatherMcpUrl, charts: pipeline.chartMcpUrl });
    const label = `${driver.name} (${driver.era})`;

    it('negotiates the era it asks for, and the whole table reaches the model plain (the control)', async () => {
      const session = await driver.open(urls(), false);
      try {
        for (const revision of session.revisions)
          expect([undefined, expectedRevision(driver.era)]).toContain(revision);
        if (driver.era !== 'legacy')
          expect(session.revisions).toEqual([
            expectedRevision(driver.era),
            expectedRevision(driver.era),
          ]);
        const text = await session.call('weather', 'get_alerts', {
          area: AREA,
          abstract_domains: null,
          mode: null,
        });
        expect(leaked(text, fragments).length).toBeGreaterThan(100);
        measured.push(`${label} plain get_alerts: ${text.length}`);
      } finally {
        await session.close();
      }
    });

    /**
     * get_alerts (abstract in `mode`) → draw_chart with the heat rows and the resource_url, through
     * the adapter when `s2sp`: no body value reaches the model and both results stay bounded.
     */
    const chain = async (mode: 'async' | 'sync', resourceUrl: RegExp) => {
      const session = await driver.open(urls(), mode === 'sync');
      try {
        const alerts = await session.call('weather', 'get_alerts', {
          area: AREA,
          abstract_domains: ABSTRACT_DOMAINS,
          mode: mode === 'sync' ? 'sync' : null,
        });
        const s2sp = findS2SP(alerts);
        expect(s2sp?.resource_url).toMatch(resourceUrl);
        const kept = (s2sp?.abstract ?? []).filter((row) => String(row.event).includes(KEEP_EVENT));
        expect(kept).toHaveLength(13);
        const chart = await session.call('charts', 'draw_chart', {
          ...NULLS,
          abstract_data: kept,
          resource_url: s2sp?.resource_url,
        });
        expect(chart).toMatch(/chart_url/);
        expect(chart).toMatch(/rows_charted.{0,4}13/);
        for (const text of [alerts, chart]) expect(leaked(text, fragments)).toEqual([]);
        expect(alerts.length).toBeLessThan(maxAbstractChars(driver));
        expect(chart.length).toBeLessThan(1_500);
        measured.push(`${label} ${mode} get_alerts: ${alerts.length}, draw_chart: ${chart.length}`);
      } finally {
        await session.close();
      }
    };

    it('async: get_alerts → draw_chart, bounded and without a body value', () =>
      chain('async', /^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//));

    if (driver.version !== undefined)
      it('sync through @s2sp/client: the body stays in the agent', () =>
        chain('sync', /^ddi:\/\//));
  },
);
