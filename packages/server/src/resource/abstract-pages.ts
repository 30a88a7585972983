/**
 * Cuts a list of rows into pages that fit a token budget: the first page has `firstRoom` tokens
 * for rows, every later one `laterRoom` (later pages carry no column profile). Every page holds at
 * least one row, so paging always advances even when a single row is over the budget.
 *
 * @param costs - the estimated tokens of each row, separator included
 * @param firstRoom - tokens left for rows on the first page
 * @param laterRoom - tokens left for rows on every later page
 * @returns `[start, end)` index ranges covering every row in order; one empty range for no rows
 */
export function splitPages(
  costs: ArrayLike<number>,
  firstRoom: number,
  laterRoom: number,
): Array<[number, number]> {
  const pages: Array<[number, number]> = [];
  let start = 0;
  let room = firstRoom;
  let used = 0;
  for (let i = 0; i < costs.length; i++) {
    const cost = costs[i] ?? 0;
    if (i > start && used + cost > room) {
      pages.push([start, i]);
      start = i;
      used = 0;
      room = laterRoom;
    }
    used += cost;
  }
  pages.push([start, costs.length]);
  return pages;
}
