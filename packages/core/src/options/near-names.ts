/**
 * How near one name is to another: a misspelt variable or file key read as the setting it was
 * meant to be. Pure text, no schema: the settings reader says which names there are.
 *
 * @module
 */

/** A name without case, `_` and `-`: `s2sp-publicurl` and `S2SP_PUBLIC_URL` are one name. */
function folded(name: string): string {
  return name.toUpperCase().replace(/[_-]/g, '');
}

/** The part before the first `_` (`S2SP`, `SLOP`, `SQL`), upper-cased: the family of a name. */
function family(name: string): string {
  return name.toUpperCase().split('_')[0] ?? '';
}

/** Edits (insert, delete, replace, swap of neighbours) from `a` to `b`, at most `limit + 1`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * How far the variable `variable` is from being `known` when it reads as a slip of it (`undefined` when not):
 * the same name but for case, `_` and `-` (`S2SP_PUBLICURL`, `log_level`: 0), or one of the same
 * family (`S2SP_…`, `SLOP_…`) within two edits (`S2SP_AUTH_TOKEN`, `S2SP_ALOWED_HOSTS`). Names
 * without a family (`PORT`, `HOST`) must match but for case, so that `HOME` or `PATH` is never
 * taken for one of ours.
 *
 * @param variable - the variable set
 * @param known - a setting's variable
 */
export function variableSlip(variable: string, known: string): number | undefined {
  if (folded(variable) === folded(known)) return 0;
  if (!known.includes('_') || family(variable) !== family(known)) return undefined;
  const edits = distance(variable.toUpperCase(), known, 2);
  return edits <= 2 ? edits : undefined;
}

/**
 * The one of `names` nearest to `name` by `measure` (edits, or `undefined` for not near).
 *
 * @param name - the name given
 * @param names - the names there are
 * @param measure - how far a name is from one of `names`
 */
export function nearest(
  name: string,
  names: readonly string[],
  measure: (name: string, known: string) => number | undefined,
): string | undefined {
  let best: { name: string; edits: number } | undefined;
  for (const known of names) {
    const edits = measure(name, known);
    if (edits !== undefined && (best === undefined || edits < best.edits))
      best = { name: known, edits };
  }
  return best?.name;
}

/**
 * The one of `names` that `name` is nearest to, within two edits or but for case, `_` and `-`:
 * a file's key that no setting has (`authToken` for `authTokens`).
 *
 * @param name - the name given
 * @param names - the names there are
 */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  return nearest(name, names, (given, known) => {
    if (folded(given) === folded(known)) return 0;
    const edits = distance(given, known, 2);
    return edits <= 2 ? edits : undefined;
  });
}
