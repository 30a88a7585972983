import { S2SPError } from './errors.js';
import { describeType, isPlainObject, parseJsonArgument, type Row } from './json.js';

/** A scalar a filter compares with. */
export type FilterValue = string | number | boolean | null;

/** The condition on one column: every operator given must hold (AND). */
export interface ColumnCondition {
  /** Equal to one of these (strings compare case-insensitively). `eq` and plain values land here. */
  readonly in?: readonly FilterValue[];
  /** A string value (or an element of an array value) contains this text, case-insensitively. */
  readonly contains?: string;
  readonly gt?: number | string;
  readonly gte?: number | string;
  readonly lt?: number | string;
  readonly lte?: number | string;
}

/** A parsed filter: conditions by column; a row matches when every condition holds. */
export type RowFilter = Readonly<Record<string, ColumnCondition>>;

/** Caps on a filter's size: it comes from a model and is evaluated on every row. */
export const FILTER_LIMITS = Object.freeze({
  columns: 20,
  values: 500,
  textLength: 500,
});

const OPERATORS = ['eq', 'in', 'contains', 'gt', 'gte', 'lt', 'lte'] as const;
const RANGE = ['gt', 'gte', 'lt', 'lte'] as const;

const GRAMMAR =
  'A filter is a JSON object of column conditions, all of which must hold: {"severity": "Severe"} (equals), {"severity": ["Severe", "Extreme"]} (one of), {"event": {"contains": "flood"}} (substring), {"magnitude": {"gte": 3, "lt": 7}} (range; numbers, or strings such as ISO dates). Strings compare case-insensitively.';

function fail(message: string): never {
  throw new S2SPError('invalid_request', `${message} ${GRAMMAR}`);
}

function scalar(where: string, value: unknown): FilterValue {
  if (typeof value === 'string') {
    if (value.length > FILTER_LIMITS.textLength)
      fail(`${where} is longer than ${FILTER_LIMITS.textLength} characters.`);
    return value;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'boolean' || value === null) return value;
  return fail(`${where} must be a string, number, boolean or null, not ${describeType(value)}.`);
}

function values(where: string, list: readonly unknown[]): FilterValue[] {
  if (list.length === 0) fail(`${where} is an empty list, which no row matches.`);
  if (list.length > FILTER_LIMITS.values)
    fail(`${where} lists more than ${FILTER_LIMITS.values} values.`);
  return list.map((v, i) => scalar(`${where}[${i}]`, v));
}

function condition(column: string, spec: unknown): ColumnCondition {
  const where = `filter.${column}`;
  if (Array.isArray(spec)) return { in: values(where, spec) };
  if (!isPlainObject(spec)) return { in: [scalar(where, spec)] };
  const keys = Object.keys(spec);
  if (keys.length === 0) fail(`${where} is an empty object.`);
  const out: {
    in?: FilterValue[];
    contains?: string;
    gt?: number | string;
    gte?: number | string;
    lt?: number | string;
    lte?: number | string;
  } = {};
  for (const key of keys) {
    if (!(OPERATORS as readonly string[]).includes(key))
      fail(`${where} has the unknown operator "${key}"; use one of ${OPERATORS.join(', ')}.`);
  }
  if (spec.eq !== undefined) out.in = [scalar(`${where}.eq`, spec.eq)];
  if (spec.in !== undefined) {
    if (!Array.isArray(spec.in)) fail(`${where}.in must be a list of values.`);
    const list = values(`${where}.in`, spec.in);
    out.in = out.in ? out.in.filter((v) => list.some((w) => same(v, w))) : list;
  }
  if (spec.contains !== undefined) {
    const text = scalar(`${where}.contains`, spec.contains);
    if (typeof text !== 'string') fail(`${where}.contains must be a string.`);
    out.contains = text;
  }
  for (const op of RANGE) {
    if (spec[op] === undefined) continue;
    const bound = scalar(`${where}.${op}`, spec[op]);
    if (typeof bound !== 'number' && typeof bound !== 'string')
      fail(`${where}.${op} must be a number or a string.`);
    out[op] = bound;
  }
  return out;
}

/**
 * Parses a filter on columns (PROTOCOL §7, filters): a JSON object (or its JSON text) mapping
 * each column to a value (equals), a list (one of), or an object of operators `eq`, `in`,
 * `contains`, `gt`, `gte`, `lt`, `lte`. Nothing is ever evaluated as code.
 *
 * @param value - the raw argument; `undefined`, `null`, `""` and `{}` mean no filter
 * @param columns - the columns a filter may name (the abstract domains); omit to allow any
 * @returns the filter, or `undefined` for none
 * @throws S2SPError `invalid_request` naming what is wrong and showing the grammar
 */
export function parseRowFilter(value: unknown, columns?: readonly string[]): RowFilter | undefined {
  const parsed = parseJsonArgument('filter', value);
  if (parsed === undefined) return undefined;
  if (!isPlainObject(parsed)) fail(`filter must be a JSON object, not ${describeType(parsed)}.`);
  const names = Object.keys(parsed);
  if (names.length === 0) return undefined;
  if (names.length > FILTER_LIMITS.columns)
    fail(`filter names ${names.length} columns; at most ${FILTER_LIMITS.columns} are allowed.`);
  if (columns) {
    const unknown = names.filter((name) => !columns.includes(name));
    if (unknown.length > 0) {
      throw new S2SPError(
        'invalid_request',
        `filter names ${unknown.map((c) => JSON.stringify(c)).join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not among the abstract columns (${columns.join(', ')}). Filter only on columns you also put in abstract_domains.`,
      );
    }
  }
  const out: Record<string, ColumnCondition> = {};
  for (const name of names) {
    Object.defineProperty(out, name, {
      value: condition(name, parsed[name]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function same(a: unknown, b: FilterValue): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  return a === b || (a === undefined && b === null);
}

function compare(value: unknown, bound: number | string): number | undefined {
  if (typeof bound === 'number')
    return typeof value === 'number' && Number.isFinite(value) ? value - bound : undefined;
  if (typeof value !== 'string') return undefined;
  return value < bound ? -1 : value > bound ? 1 : 0;
}

function holds(value: unknown, c: ColumnCondition): boolean {
  if (c.in && !c.in.some((v) => same(value, v))) return false;
  if (c.contains !== undefined) {
    const needle = c.contains.toLowerCase();
    const texts = Array.isArray(value) ? value : [value];
    if (!texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(needle))) return false;
  }
  for (const op of RANGE) {
    const bound = c[op];
    if (bound === undefined) continue;
    const d = compare(value, bound);
    if (d === undefined) return false;
    if (op === 'gt' ? !(d > 0) : op === 'gte' ? !(d >= 0) : op === 'lt' ? !(d < 0) : !(d <= 0))
      return false;
  }
  return true;
}

/**
 * True when `row` meets every condition of `filter`. An absent column counts as `null`; a range
 * never matches a value of the other type (a string against a number bound).
 */
export function matchesFilter(row: Row, filter: RowFilter): boolean {
  for (const column of Object.keys(filter)) {
    const value = Object.hasOwn(row, column) ? row[column] : undefined;
    if (!holds(value, filter[column] as ColumnCondition)) return false;
  }
  return true;
}
