import type { DemoReport } from './agent.js';

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
