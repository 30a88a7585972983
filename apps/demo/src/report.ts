import type { DemoReport, FlowReport } from './agent.js';
import type { SeverityReport } from './severity-task.js';

const n = (value: number) => value.toLocaleString('en-US');
const kb = (bytes: number) =>
  `${(bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KiB`;
const fewer = (ours: number, plain: number) =>
  `${((100 * (plain - ours)) / plain).toFixed(1)}% fewer`;

/**
 * The report a person reads at the end of `pnpm demo`. The chart page's URL is shown only when the
 * servers stay up (`keepRunning`): otherwise it would be dead by the time anyone opens it.
 */
export function formatReport(
  report: DemoReport,
  { keepRunning = false }: { keepRunning?: boolean } = {},
): string {
  const { plain: p, async: a, sync: s } = report;
  const total = (flow: FlowReport) => flow.tokensRead + flow.tokensWritten;
  const row = (label: string, flow: FlowReport, note: string) =>
    `    ${label.padEnd(11)} ${n(flow.tokensRead).padStart(8)} ${n(flow.tokensWritten).padStart(9)}   ${fewer(total(flow), total(p))}: ${note}`;
  const matched = report.matched > 0;
  // How far the servers' estimate is from the tokenizer's count of the same saving, this run.
  const off = Math.max(
    ...[a, s].map((flow) => Math.abs(flow.receipt.tokensSaved / flow.receipt.countedSaved - 1)),
  );
  return [
    '',
    `S2SP demo: NWS alerts for ${report.area}${report.live ? ' (live api.weather.gov)' : ' (recorded NWS data, replayed offline)'}`,
    `  table      ${n(report.rows)} alerts × ${n(report.columns)} columns; S2SP asks for 4 of them (event, severity, urgency, status)`,
    `  filter     ${matched ? `${n(report.matched)} alerts match "${report.event}"` : `no alert matches "${report.event}": all are charted`}`,
    '',
    '  tokens (o200k_base)   read   written   by the model, for the whole task',
    `    ${'plain MCP'.padEnd(11)} ${n(p.tokensRead).padStart(8)} ${n(p.tokensWritten).padStart(9)}   every row in, the kept rows out again`,
    row(
      'S2SP async',
      a,
      matched
        ? `the compact abstract of the ${n(report.matched)} matching alerts in, the filter handed to draw_chart`
        : `the filter matched nothing, so the model asked again for the abstract of all ${n(report.rows)} alerts and wrote it into draw_chart`,
    ),
    row(
      'S2SP sync',
      s,
      `${matched ? 'the abstract' : `the empty filtered result, then the abstract of all ${n(report.rows)}`} in, its rows out to draw_chart; the body stayed in the agent's SDK layer`,
    ),
    `  receipt    ~${n(a.receipt.tokensSaved)} tokens saved (async), ~${n(s.receipt.tokensSaved)} (sync): _meta "s2sp/receipt" of the get_alerts result the chart`,
    `             was drawn from, the plain result's o200k_base tokens less that result's, as the server estimates them`,
    `             without a tokenizer (within ±10%; this run ${(100 * off).toFixed(1)}% off the demo's o200k_base count)${a.emptyReads > 0 ? '; the empty filtered result is not in it' : ''}`,
    '',
    '  bytes (each flow includes the same chart summary coming back)',
    `    server to server, async      ${kb(a.serverToServerBytes).padStart(10)}   weather-alerts → chart-consumer, never through the agent`,
    `    through the agent, plain     ${kb(p.agentBytes).padStart(10)}`,
    `    through the agent, async     ${kb(a.agentBytes).padStart(10)}`,
    `    through the agent, sync      ${kb(s.agentBytes).padStart(10)}   (the body passed through, the model never saw it)`,
    '',
    `  chart      ${n(a.rowsCharted)} rows charted → ${a.chartFile} (${kb(a.pngBytes)} PNG)`,
    keepRunning
      ? `             ${a.chartUrl}`
      : '             to open the chart page, run pnpm demo --keep-running (serves it until Ctrl-C)',
    '',
  ].join('\n');
}

/** The second task's part of the report: the answer, then tokens three ways. */
export function formatSeverityReport(
  report: SeverityReport,
  { keepRunning = false }: { keepRunning?: boolean } = {},
): string {
  const { plain: p, paging: g, sqlTables: q } = report;
  const total = (t: { tokensRead: number; tokensWritten: number }) =>
    t.tokensRead + t.tokensWritten;
  const share = (t: { tokensRead: number; tokensWritten: number }, of: number) =>
    `${((100 * total(t)) / of).toFixed(1)}%`;
  // The paging flow's calls: every page, then draw_chart.
  const pages = g.calls - 1;
  const row = (label: string, t: SeverityReport['plain'], note: string) =>
    `    ${label.padEnd(17)} ${n(t.tokensRead).padStart(8)} ${n(t.tokensWritten).padStart(9)} ${String(t.calls).padStart(6)}   ${note}`;
  return [
    `  Task 2: ${report.question}`,
    `  answer     ${Object.entries(report.counts)
      .map(([severity, count]) => `${severity} ${count}`)
      .join(', ')}  (sql: ${report.sql})`,
    '',
    '  tokens (o200k_base)         read   written  calls   by the model',
    row('plain MCP', p, 'every alert in, every alert out into draw_chart'),
    row(
      'S2SP paging',
      g,
      `${share(g, total(p))} of plain: every page of the severity abstract (${pages} here), counted by the model, row_ids to draw_chart`,
    ),
    row(
      'S2SP query_tables',
      q,
      `${share(q, total(p))} of plain: the abstract's first page, the SQL and the grouped counts; ${
        pages === 1
          ? 'paging is cheaper while the table fits one page'
          : `one page where paging reads ${pages}`
      }`,
    ),
    '',
    `  chart      ${n(report.rowsCharted)} grouped rows charted from the SQL answer's resource_url, bars = n (${Object.entries(
      report.bars,
    )
      .map(([severity, height]) => `${severity} ${height}`)
      .join(', ')})`,
    // The servers stop with the demo: a URL printed without --keep-running would already be dead.
    ...(keepRunning ? [`             ${report.chartUrl}`] : []),
    '',
  ].join('\n');
}
