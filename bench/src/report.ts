// The Markdown of a run and of the committed BENCHMARKS.md is made by one renderer,
// `bench/scripts/report.mjs` (plain ESM, so that `pnpm figures` needs no build); this file keeps the
// row type the benchmarks fill and the terminal table.

import type { RecordedRow } from '../scripts/report.mjs';

/** One measured line of the report (its fields: `RecordedRow` of the renderer's types). */
export type BenchRow = RecordedRow;

function formatValue(value: number | string): string {
  return typeof value === 'number'
    ? value.toLocaleString('en-US', { maximumFractionDigits: 3 })
    : value;
}

/** The rows as a plain-text table for the terminal. */
export function formatTable(rows: readonly BenchRow[]): string {
  const lines: string[] = [];
  let section = '';
  for (const row of rows) {
    if (row.section !== section) {
      section = row.section;
      lines.push('', `== ${section}`);
    }
    const values = Object.entries(row.values)
      .map(([k, v]) => `${k}=${formatValue(v)}`)
      .join('  ');
    const verdict = row.target ? `  [${row.met ? 'MET' : 'MISSED'}: ${row.target}]` : '';
    lines.push(`  ${row.name.padEnd(44)} ${values}${verdict}`);
  }
  return lines.join('\n');
}
