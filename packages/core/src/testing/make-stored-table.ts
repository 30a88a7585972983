import type { StoredTable } from '../store/body-store.js';

/** Builds a stored table of `n` rows with two columns, for contract tests. */
export function makeStoredTable(n: number, label = 'row'): StoredTable {
  const rows: string[] = [];
  for (let i = 0; i < n; i++)
    rows.push(
      JSON.stringify({ _row_id: i, name: `${label}-${i}`, payload: { i, tags: ['a', 'ß', '😀'] } }),
    );
  return { columns: ['name', 'payload'], rows };
}
