import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { S2SPDispatcher, withS2SP } from '@s2sp/client';
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { type ByteCounter, createCountingFetch } from './counting-fetch.js';
import type { Pipeline } from './pipeline.js';
import { countTokens } from './tokens.js';

/** The columns the scripted agent asks for: enough to filter by event, no more. */
export const ABSTRACT_DOMAINS = 'event,severity,urgency,status';

interface ToolResult {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

interface AbstractRow {
  _row_id: number;
  event?: string;
}

/** One run of the pipeline in one mode. */
export interface FlowReport {
  /** Tokens of the tool results the model reads (resource tool + chart summary). */
  readonly tokensRead: number;
  /** Tokens of the tool-call arguments the model writes. */
  readonly tokensWritten: number;
  /** Bytes the agent process sent and received over MCP. */
  readonly agentBytes: number;
  /** Bytes the consumer fetched from the resource server's data plane. */
  readonly serverToServerBytes: number;
  readonly rowsCharted: number;
  readonly chartUrl: string;
  readonly chartFile: string;
  readonly pngBytes: number;
  /** Wall time of the flow, in milliseconds. */
  readonly ms: number;
  /**
   * The savings receipt (`_meta["s2sp/receipt"]`) of the resource result the chart was drawn from:
   * `tokensSaved`, the server's estimate of the plain result's tokens less this result's, and
   * `countedSaved`, the same difference counted with o200k_base here. One plain call stands for
   * this result, so the counted saving is at most the plain result's tokens. Zero in the plain flow.
   */
  readonly receipt: { readonly tokensSaved: number; readonly countedSaved: number };
  /**
   * Resource results the model read before the one the chart was drawn from: 1 when the filter
   * matched nothing and the flow asked again without it, else 0.
   */
  readonly emptyReads: number;
}

/** Everything the demo measured. */
export interface DemoReport {
  readonly area: string;
  readonly event: string;
  readonly live: boolean;
  readonly rows: number;
  readonly columns: number;
  readonly matched: number;
  /** Plain MCP: the model reads every row and writes the kept rows into draw_chart. */
  readonly plain: FlowReport;
  readonly async: FlowReport;
  readonly sync: FlowReport;
}

/** A tool failure the demo cannot continue past. */
export class DemoError extends Error {
  override readonly name = 'DemoError';
}

/**
 * The agent's MCP client: SDK v2's, negotiating the protocol revision (2026-07-28 with these
 * servers, which serve 2025 clients on the same endpoints too).
 */
export async function connectAgent(url: string, counter?: ByteCounter): Promise<Client> {
  const client = new Client(
    { name: 's2sp-demo-agent', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      counter ? { fetch: createCountingFetch(counter) } : {},
    ),
  );
  return client;
}

function textOf(result: ToolResult, what: string): string {
  const text = result.content.find((block) => block.type === 'text')?.text ?? '';
  if (result.isError) throw new DemoError(`${what} failed: ${text}`);
  return text;
}

/**
 * Acts as the agent: calls the resource tool plainly (the baseline), then runs the S2SP pipeline
 * in async mode (the consumer fetches the body from the resource server) and in sync mode (the
 * body passes through this process via @s2sp/client, never the model), counting the tokens the
 * model would read and the bytes each path moves.
 */
export async function runAgent(
  pipeline: Pipeline,
  options: {
    area: string;
    event: string;
    live: boolean;
    outputDir: string;
    say: (line: string) => void;
  },
): Promise<DemoReport> {
  const { say } = options;
  const counter: ByteCounter = { sent: 0, received: 0 };
  const bytes = () => counter.sent + counter.received;
  const weather = await connectAgent(pipeline.weather.mcpUrl, counter);
  const charts = await connectAgent(pipeline.chart.mcpUrl, counter);
  try {
    const keyword = options.event.toLowerCase();
    let matched = 0;
    const keep = <T extends object>(rows: T[]): T[] => {
      const matching = rows.filter((row) => {
        const event = (row as { event?: unknown }).event;
        return typeof event === 'string' && event.toLowerCase().includes(keyword);
      });
      matched = matching.length;
      return matching.length > 0 ? matching : rows;
    };
    const describeKept = (kept: number) =>
      matched > 0
        ? `${kept} "${options.event}" alerts`
        : `all ${kept} alerts (none match "${options.event}")`;

    // Where a flow starts: its time, the agent's bytes and the data plane's bytes so far.
    const start = () => ({
      at: performance.now(),
      agent: bytes(),
      dataPlane: pipeline.dataPlaneBytes(),
    });
    const measured = (
      since: ReturnType<typeof start>,
      read: readonly string[],
      written: readonly unknown[],
      chart: { rowsCharted: number; chartUrl: string; chartFile: string; pngBytes: number },
      receipt: FlowReport['receipt'] = { tokensSaved: 0, countedSaved: 0 },
      emptyReads = 0,
    ): FlowReport => ({
      receipt,
      emptyReads,
      tokensRead: read.reduce((sum, text) => sum + countTokens(text), 0),
      tokensWritten: written.reduce(
        (sum: number, args) => sum + countTokens(JSON.stringify(args)),
        0,
      ),
      agentBytes: bytes() - since.agent,
      serverToServerBytes: pipeline.dataPlaneBytes() - since.dataPlane,
      rowsCharted: chart.rowsCharted,
      chartUrl: chart.chartUrl,
      chartFile: chart.chartFile,
      pngBytes: chart.pngBytes,
      ms: performance.now() - since.at,
    });

    const draw = async (
      mode: string,
      client: Pick<Client, 'callTool'>,
      args: Record<string, unknown>,
    ) => {
      const drawn = (await client.callTool({ name: 'draw_chart', arguments: args })) as ToolResult;
      const summaryText = textOf(drawn, 'draw_chart');
      const summary = JSON.parse(summaryText) as { chart_url: string; rows_charted: number };
      // The chart itself stays on chart-consumer's page; only the summary reaches the model.
      const png = Buffer.from(await (await fetch(`${summary.chart_url}.png`)).arrayBuffer());
      mkdirSync(options.outputDir, { recursive: true });
      const chartFile = join(options.outputDir, `chart-${options.area}-${mode}.png`);
      writeFileSync(chartFile, png);
      return {
        summaryText,
        chartUrl: summary.chart_url,
        rowsCharted: summary.rows_charted,
        chartFile,
        pngBytes: png.byteLength,
      };
    };

    // Plain MCP: every row and column goes through the model, which then writes the rows it
    // keeps into the consumer's arguments.
    say(`plain: get_alerts(area="${options.area}") as a plain MCP tool…`);
    const mark = start();
    const plainArgs = { area: options.area };
    const plainText = textOf(
      (await weather.callTool({ name: 'get_alerts', arguments: plainArgs })) as ToolResult,
      'get_alerts',
    );
    const allRows = JSON.parse(plainText) as Record<string, unknown>[];
    if (allRows.length === 0)
      throw new DemoError(
        `NWS reports no active alerts for ${options.area} right now: nothing to chart. Try another --area.`,
      );
    const columns = new Set(allRows.flatMap((row) => Object.keys(row)));
    const plainKept = keep(allRows.map((row, i) => ({ _row_id: i, ...row })));
    say(
      `plain: the model keeps ${describeKept(plainKept.length)} and writes them, whole, into draw_chart…`,
    );
    // Without S2SP the model writes every kept row, whole, as the body.
    const plainChartArgs = {
      abstract_data: JSON.stringify(plainKept.map(({ _row_id }) => ({ _row_id }))),
      body_data: JSON.stringify(plainKept),
    };
    const plainChart = await draw('plain', charts, plainChartArgs);
    const plain = measured(
      mark,
      [plainText, plainChart.summaryText],
      [plainArgs, plainChartArgs],
      plainChart,
    );

    const runFlow = async (mode: 'async' | 'sync'): Promise<FlowReport> => {
      const dispatcher = new S2SPDispatcher();
      // The adapter reads a sync body from structuredContent, so it asks for the rows once on the
      // wire (PROTOCOL §7.11); the model reads the same text either way.
      const resource =
        mode === 'sync' ? withS2SP(weather, { dispatcher, syncBody: 'structured' }) : weather;
      const consumer = mode === 'sync' ? withS2SP(charts, { dispatcher }) : charts;
      const flowMark = start();
      say(
        `${mode}: get_alerts(area="${options.area}", abstract_domains="${ABSTRACT_DOMAINS}", filter={"event":{"contains":"${options.event}"}}${mode === 'sync' ? ', mode="sync"' : ''})…`,
      );
      // The model narrows before reading: a filter on the abstract columns (PROTOCOL §7) keeps
      // only the matching alerts out of the response.
      const filter = { event: { contains: options.event } };
      const splitArgs = {
        area: options.area,
        abstract_domains: ABSTRACT_DOMAINS,
        filter,
        ...(mode === 'sync' && { mode }),
      };
      const splitResult = (await resource.callTool({
        name: 'get_alerts',
        arguments: splitArgs,
      })) as ToolResult;
      const splitText = textOf(splitResult, 'get_alerts');
      // What the model read: the text. Code reads structuredContent, the same in every encoding.
      const split = (splitResult.structuredContent ?? JSON.parse(splitText)) as {
        abstract: AbstractRow[];
        resource_url: string;
        matched_rows?: number;
      };
      const read = [splitText];
      const written: unknown[] = [splitArgs];
      // The result the chart is drawn from, whose receipt the report shows.
      let used = { result: splitResult, text: splitText };
      let kept = split.abstract;
      matched = kept.length;
      if (kept.length === 0) {
        // Nothing matched: chart every alert, as the plain flow does (and count that call too).
        const allArgs = {
          area: options.area,
          abstract_domains: ABSTRACT_DOMAINS,
          ...(mode === 'sync' && { mode }),
        };
        const all = (await resource.callTool({
          name: 'get_alerts',
          arguments: allArgs,
        })) as ToolResult;
        const allText = textOf(all, 'get_alerts');
        const whole = (all.structuredContent ?? JSON.parse(allText)) as typeof split;
        read.push(allText);
        written.push(allArgs);
        used = { result: all, text: allText };
        kept = whole.abstract;
        split.resource_url = whole.resource_url;
      }
      say(
        `${mode}: the model reads ${describeKept(kept.length)}; draw_chart(${mode === 'async' && matched > 0 ? 'filter' : 'abstract_data'}, resource_url)…`,
      );
      // async: the model hands over the filter it already wrote and the consumer selects the rows
      // itself (PROTOCOL §7); sync: the abstract rows, so that the agent's S2SP layer can swap the
      // ddi:// handle for those rows' bodies.
      const chartArgs =
        mode === 'async' && matched > 0
          ? { filter, resource_url: split.resource_url }
          : { abstract_data: JSON.stringify(kept), resource_url: split.resource_url };
      const chart = await draw(mode, consumer, chartArgs);
      // The receipt of the result the chart came from, and the tokenizer's count of what it
      // estimates: the plain result against that one result. (Summing a receipt per call would
      // count the one plain result once per call: twice when the filter matched nothing.)
      const receipt = {
        tokensSaved: readS2SPReceipt(used.result)?.tokens_saved ?? 0,
        countedSaved: countTokens(plainText) - countTokens(used.text),
      };
      return measured(
        flowMark,
        [...read, chart.summaryText],
        [...written, chartArgs],
        chart,
        receipt,
        read.length - 1,
      );
    };

    const asyncFlow = await runFlow('async');
    const syncFlow = await runFlow('sync');
    return {
      area: options.area,
      event: options.event,
      live: options.live,
      rows: allRows.length,
      columns: columns.size,
      matched,
      plain,
      async: asyncFlow,
      sync: syncFlow,
    };
  } finally {
    await weather.close();
    await charts.close();
  }
}
