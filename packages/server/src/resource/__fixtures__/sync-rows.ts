/**
 * A sync result's rows read back from its text (`syncRows`), the text made as `buildTableResult`
 * makes it: for the tests of the reading and of the receipt that counts from it.
 */

import { bodyRows, splitColumns } from '../column-split.js';
import { buildSyncResult, syncResultJson } from '../s2sp-result.js';
import { syncRows } from '../sync-rows.js';
import { prepareTable } from '../table.js';

/**
 * `syncRows` of `rows`, from the text of a sync result of every row.
 *
 * @param rows - the tool's rows
 * @param domains - the abstract's columns (default: the first two)
 */
export function syncRowsOf(rows: readonly object[], domains?: readonly string[]) {
  const table = prepareTable(rows);
  const split = splitColumns(table, domains ?? table.columns.slice(0, 2));
  const json = syncResultJson(buildSyncResult(split, []));
  const body = JSON.stringify(bodyRows(table, split.bodyDomains));
  return syncRows(table, json.withBody(body), json.abstract, json.bodySpan(body.length));
}
