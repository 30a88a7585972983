import { createChartServer } from '@s2sp/app-chart-consumer';
import { createWeatherServer } from '@s2sp/app-weather-alerts';
import { createS2SPServer, DEFAULT_TOKEN_BUDGET, silentLogger } from '@s2sp/server';
import { connectMcp, makeAlertRows, o200k } from './alert-rows.js';
import type { BenchRow } from './report.js';
import { readToolsListRecording } from './tools-list-recording.js';

const SECTION = '9. Large tables: a bounded abstract, paging, filters and hand-off (o200k_base)';
const TOOLS_SECTION = '10. tools/list of weather-alerts (o200k_base)';

/**
 * The revision whose tools/list is "before": main before abstracts were bounded. Its listing is
 * the committed recording `record-tools-list.ts` made of it (bench/fixtures/tools-list).
 */
const BEFORE_REVISION = '66424f3';

type CallResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

function textOf(result: CallResult): string {
  const text = result.content.find((c) => c.type === 'text')?.text ?? '';
  if (result.isError) throw new Error(`tool call failed: ${text}`);
  return text;
}

/**
 * The targets: a 10 000- and a 100 000-row table keep every control-plane response within
 * the default token budget, counted with the real o200k_base tokenizer; every row is reachable
 * through paging, a filter and the data plane; a filtered 5 000-row selection is charted end to
 * end by the chart consumer, handed over by the filter. Then tools/list of weather-alerts against
 * its size before.
 */
export async function largeTablesBenchmark(quick: boolean): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  const sizes = quick ? [10_000] : [10_000, 100_000];
  const server = createS2SPServer({
    name: 'large',
    version: '1',
    logger: silentLogger,
    maxCacheBytes: 4 * 1024 ** 3,
  });
  const tables = new Map(sizes.map((n) => [n, makeAlertRows(n)]));
  for (const n of sizes) {
    server.resourceTool(`get_${n}`, { description: `${n} rows.` }, () => tables.get(n) ?? []);
  }
  const listening = await server.listen({ host: '127.0.0.1' });
  const chart = createChartServer({ allowedOrigins: [listening.url], logger: silentLogger });
  const chartListening = await chart.server.listen({ host: '127.0.0.1' });
  chart.setBaseUrl(chartListening.url);
  const agent = await connectMcp(listening.mcpUrl);
  const charts = await connectMcp(chartListening.mcpUrl);
  try {
    for (const n of sizes) {
      const tool = `get_${n}`;
      const call = async (args: Record<string, unknown>) => {
        const result = (await agent.callTool({ name: tool, arguments: args })) as CallResult;
        const text = textOf(result);
        return { text, object: result.structuredContent as Record<string, unknown> };
      };
      // Paging: follow next_cursor to the end, counting every response with the tokenizer.
      const started = performance.now();
      const first = await call({ abstract_domains: 'event,severity' });
      const firstTokens = o200k(first.text);
      let maxTokens = firstTokens;
      let pages = 1;
      const seen = new Set<number>();
      for (const row of first.object.abstract as { _row_id: number }[]) seen.add(row._row_id);
      let cursor = first.object.next_cursor;
      while (typeof cursor === 'string') {
        const page = await call({ cursor });
        maxTokens = Math.max(maxTokens, o200k(page.text));
        for (const row of page.object.abstract as { _row_id: number }[]) seen.add(row._row_id);
        cursor = page.object.next_cursor;
        pages++;
      }
      const pagingSeconds = (performance.now() - started) / 1000;
      // The data plane still serves the whole table once: paging did not use the token up.
      const response = await fetch(first.object.resource_url as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const served = ((await response.json()) as { body: unknown[] }).body.length;
      // A filter: the severe quarter of the table, its first page within the budget too.
      const filtered = await call({
        abstract_domains: 'event,severity',
        filter: { severity: 'Severe' },
      });
      const filterTokens = o200k(filtered.text);
      const within = Math.max(maxTokens, filterTokens) <= DEFAULT_TOKEN_BUDGET;
      out.push({
        section: SECTION,
        name: `${n.toLocaleString('en-US')} rows, event,severity: every response`,
        how: 'createS2SPServer and the official SDK client over Streamable HTTP in one process; every text block counted with js-tiktoken o200k_base',
        values: {
          'first page o200k': firstTokens,
          'rows on it': (first.object.abstract as unknown[]).length,
          'profile columns': Object.keys((first.object.profile as object) ?? {}).length,
          pages,
          'max o200k of any page': maxTokens,
          'filtered first page o200k': filterTokens,
          'paging s': Math.round(pagingSeconds * 10) / 10,
        },
        target: `every control-plane response ≤ ${DEFAULT_TOKEN_BUDGET.toLocaleString('en-US')} tokens`,
        met: within,
      });
      const reachable = seen.size === n && served === n && filtered.object.matched_rows === n / 4;
      out.push({
        section: SECTION,
        name: `${n.toLocaleString('en-US')} rows: all rows reachable`,
        values: {
          'rows through paging': seen.size,
          'rows from the data plane after paging': served,
          'filter matched_rows': filtered.object.matched_rows as number,
        },
        target: 'all rows reachable through paging, filter and the data plane',
        met: reachable,
      });
    }

    // Chart a filtered 5 000-row selection end to end: the model writes only the filter.
    const n = sizes[0] as number;
    const filter = { severity: ['Severe', 'Extreme'] };
    const picked = (await agent.callTool({
      name: `get_${n}`,
      arguments: { abstract_domains: 'event,severity', filter },
    })) as CallResult;
    const pickedText = textOf(picked);
    const args = { resource_url: picked.structuredContent?.resource_url, filter };
    const started = performance.now();
    const drawn = (await charts.callTool({ name: 'draw_chart', arguments: args })) as CallResult;
    const summary = JSON.parse(textOf(drawn)) as { rows_charted: number };
    out.push({
      section: SECTION,
      name: `chart ${summary.rows_charted.toLocaleString('en-US')} of ${n.toLocaleString('en-US')} rows, handed over by filter`,
      how: 'chart-consumer (createChartServer) fetches the table over the data plane, applies the filter and renders the PNG',
      values: {
        'rows charted': summary.rows_charted,
        'model reads o200k (first page)': o200k(pickedText),
        'model writes o200k (draw_chart args)': o200k(JSON.stringify(args)),
        'draw_chart s': Math.round((performance.now() - started) / 100) / 10,
      },
      target: 'a filtered 5,000-row selection charts end to end',
      met: summary.rows_charted === 5000,
    });
  } finally {
    await agent.close();
    await charts.close();
    await chart.server.close();
    await server.close();
  }

  // tools/list of weather-alerts, as a client lists it (the server needs no NWS to list tools),
  // against the same measure of the recorded listing at BEFORE_REVISION.
  const before = readToolsListRecording(BEFORE_REVISION);
  const toolsBefore = o200k(JSON.stringify(before.listTools));
  const instructionsBefore = o200k(before.instructions);
  const weather = createWeatherServer({ logger: silentLogger });
  const weatherListening = await weather.listen({ port: 0, host: '127.0.0.1' });
  const client = await connectMcp(weatherListening.mcpUrl);
  try {
    const tools = o200k(JSON.stringify(await client.listTools()));
    const instructions = o200k(client.getInstructions() ?? '');
    out.push({
      section: TOOLS_SECTION,
      name: `tools/list, before (main ${BEFORE_REVISION}) → now`,
      how: `JSON of the listTools() result from the official SDK client; the instructions are sent once per session at initialisation. Before: the listing of ${before.commit.slice(0, 12)} recorded by \`${before.command}\` (bench/fixtures/tools-list), counted the same way`,
      values: {
        'before o200k': toolsBefore,
        'now o200k': tools,
        '% of before': Math.round((1000 * tools) / toolsBefore) / 10,
        'instructions before': instructionsBefore,
        'instructions now': instructions,
        'both, % of before':
          Math.round((1000 * (tools + instructions)) / (toolsBefore + instructionsBefore)) / 10,
      },
      target: 'tools/list ≤ 60% of before',
      met: tools <= 0.6 * toolsBefore,
    });
  } finally {
    await client.close();
    await weather.close();
  }
  return out;
}
