import type { DemoReport } from './agent.js';
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
  const row = (label: string, read: number, written: number, note: string) =>
    `    ${label.padEnd(11)} ${n(read).padStart(8)} ${n(written).padStart(9)}   ${note}`;
  return [
    '',
    `S2SP demo: NWS alerts for ${report.area}${report.live ? ' (live api.weather.gov)' : ' (recorded NWS data, replayed offline)'}`,
    `  table      ${n(report.rows)} alerts × ${n(report.columns)} columns; S2SP asks for 4 of them (event, severity, urgency, status)`,
    `  filter     ${report.matched > 0 ? `${n(report.matched)} alerts match "${report.event}"` : `no alert matches "${report.event}": all are charted`}`,
    '',
    '  tokens (o200k_base)   read   written   by the model, for the whole task',
    row('plain MCP', p.tokensRead, p.tokensWritten, 'every row in, the kept rows out again'),
    row(
      'S2SP async',
      a.tokensRead,
      a.tokensWritten,
      `${fewer(a.tokensRead + a.tokensWritten, p.tokensRead + p.tokensWritten)}: ${n(a.tokensRead + a.tokensWritten)} read + written (target ≤ 550): filtered compact abstract, hand-off by filter`,
    ),
    row(
      'S2SP sync',
      s.tokensRead,
      s.tokensWritten,
      `${fewer(s.tokensRead + s.tokensWritten, p.tokensRead + p.tokensWritten)}: the body stayed in the agent's SDK layer`,
    ),
    `  receipt    S2SP results carry their savings in _meta "s2sp/receipt": ~${n(a.receipt.tokensSaved)} tokens saved (async), ~${n(s.receipt.tokensSaved)} (sync),`,
    `             the servers' estimate; counted with o200k_base: ${n(a.receipt.countedSaved)} (async), ${n(s.receipt.countedSaved)} (sync)`,
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
      `${share(g, total(p))} of plain: every page of the severity abstract, counted by the model, row_ids to draw_chart`,
    ),
    row(
      'S2SP query_tables',
      q,
      `${share(q, total(p))} of plain, ${share(q, total(g))} of paging: the SQL and the grouped counts only`,
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
