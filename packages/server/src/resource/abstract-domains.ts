import { PROTOCOL, S2SPError } from '@s2sp/core';
import { describeType, parseJsonText } from '@s2sp/core/json';
import { abstractDomainsHowTo, chooseAvailableColumns } from '../advice.js';

const HOW_TO = abstractDomainsHowTo;

/**
 * Parses `abstract_domains` in every accepted form (PROTOCOL §2): a comma-separated string, a
 * JSON-array string or an array. Whitespace and empty items are ignored, duplicates collapse,
 * order is kept. `_row_id` is dropped because it is always part of the abstract anyway.
 *
 * @param input - the raw tool argument
 * @returns the column names; empty means "plain MCP call, no S2SP"
 * @throws S2SPError `invalid_request` for anything else
 *
 * @example
 * ```ts
 * parseAbstractDomains(' event, severity,,event'); // ['event', 'severity']
 * parseAbstractDomains('["event","severity"]');    // ['event', 'severity']
 * ```
 */
export function parseAbstractDomains(input: unknown): string[] {
  if (input === undefined || input === null) return [];
  let items: unknown[];
  if (typeof input === 'string') {
    const text = input.trim();
    if (text.startsWith('[')) {
      const parsed = parseJsonText(
        text,
        () =>
          new S2SPError(
            'invalid_request',
            `abstract_domains starts with "[" but is not a valid JSON array. ${HOW_TO}`,
          ),
      );
      if (!Array.isArray(parsed)) {
        throw new S2SPError('invalid_request', `abstract_domains is not a JSON array. ${HOW_TO}`);
      }
      items = parsed;
    } else {
      items = text.split(',');
    }
  } else if (Array.isArray(input)) {
    items = input;
  } else {
    throw new S2SPError('invalid_request', `abstract_domains is ${describeType(input)}. ${HOW_TO}`);
  }
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== 'string') {
      throw new S2SPError(
        'invalid_request',
        `abstract_domains item ${i} is ${describeType(item)}, not a column name. ${HOW_TO}`,
      );
    }
    const name = item.trim();
    if (name === '' || name === PROTOCOL.rowId || seen.has(name)) continue;
    seen.add(name);
    out.push(name);
  }
  return out;
}

/** How many names an error lists before it says how many more there are. */
const LISTED_NAMES = 20;
/** How much of one name an error shows. */
const NAME_CHARS = 64;

function shortName(name: string): string {
  return name.length > NAME_CHARS ? `${name.slice(0, NAME_CHARS)}…` : name;
}

/** Options for {@link listNames}. */
export interface ListNamesOptions {
  /** How many names to show before the count of the rest. Default 20. */
  readonly max?: number;
  /** A word after each shown name (its type, say), by the name's index. */
  readonly label?: (index: number) => string;
}

/**
 * Quoted names for a text the model reads, within a fixed size whatever the table: at most
 * `max` (20) names of at most 64 characters, each with its `label` if given, then a count,
 * `… and 19,990 more`.
 *
 * @param names - column names (the table's data: any number, any length)
 * @param options - how many to show, and a label for each
 * @example
 * ```ts
 * listNames(['severity', 'n'], { label: (i) => ['VARCHAR', 'BIGINT'][i] ?? '' });
 * // '"severity" VARCHAR, "n" BIGINT'
 * ```
 */
export function listNames(names: readonly string[], options: ListNamesOptions = {}): string {
  const { max = LISTED_NAMES, label } = options;
  const shown = names
    .slice(0, max)
    .map((name, i) => `${JSON.stringify(shortName(name))}${label ? ` ${label(i)}` : ''}`);
  const more = names.length - shown.length;
  if (more <= 0) return shown.join(', ');
  const count = `… and ${more.toLocaleString('en-US')} more`;
  return shown.length > 0 ? `${shown.join(', ')} ${count}` : count;
}

// Folds case, spaces, dashes and underscores so that "Severity" or "area_desc" can be suggested
// as "severity" / "areaDesc".
function fold(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

/**
 * Checks requested abstract columns against the table's columns. With zero rows any names are
 * accepted (there is nothing to check against, and an empty result is not an error).
 *
 * @param domains - parsed abstract domains
 * @param columns - the table's (or the declared row schema's) columns
 * @param rowCount - how many rows the table has
 * @throws S2SPError `invalid_request` naming the unknown columns, suggesting near matches and
 *   listing the available ones, so an LLM can correct the call
 */
export function assertKnownColumns(
  domains: readonly string[],
  columns: readonly string[],
  rowCount: number,
): void {
  if (rowCount === 0) return;
  const known = new Set(columns);
  const unknown = domains.filter((d) => !known.has(d));
  if (unknown.length === 0) return;
  const byFold = new Map(columns.map((c) => [fold(c), c] as const));
  const hints = unknown
    .map((u) => [u, byFold.get(fold(u))] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
    .map(([u, c]) => `"${u}" → "${c}"`);
  throw new S2SPError(
    'invalid_request',
    `Unknown abstract_domains column${unknown.length > 1 ? 's' : ''}: ${listNames(unknown)}.` +
      (hints.length > 0 ? ` Did you mean ${hints.slice(0, LISTED_NAMES).join(', ')}?` : '') +
      ` Available columns: ${listNames(columns)}. ${chooseAvailableColumns}`,
    {
      data: {
        unknownColumns: unknown.slice(0, LISTED_NAMES).map(shortName),
        availableColumns: columns.slice(0, LISTED_NAMES).map(shortName),
        ...(columns.length > LISTED_NAMES && { moreColumns: columns.length - LISTED_NAMES }),
      },
    },
  );
}
