// The Markdown of a run and of the committed BENCHMARKS.md is made by one renderer,
// `bench/scripts/report.mjs` (plain ESM, so that `pnpm figures` needs no build); this file keeps the
// row type the benchmarks fill and the terminal table.

/** One measured line of the report. */
export interface BenchRow {
  /** Which benchmark (section) it belongs to. */
  readonly section: string;
  /** What was measured. */
  readonly name: string;
  /** How it was measured: which processes, which client, how many runs. */
  readonly how?: string;
  /** Measured values, by name (numbers rounded for display). */
  readonly values: Record<string, number | string>;
  /** The target this row is judged against, if any. */
  readonly target?: string;
  /** Whether this run met the target. */
  readonly met?: boolean;
  /** Why a missed target was missed, and what would fix it (goes into BENCHMARKS.md). */
  readonly note?: string;
}

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
