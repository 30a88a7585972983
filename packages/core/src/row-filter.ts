/**
 * The row filter (PROTOCOL §7, filters): a JSON object of column conditions that a model passes
 * to select rows. The operators are one table, {@link ROW_FILTER_OPERATORS}; the condition type,
 * the parser, the matcher and the grammar a model reads are all derived from it, so adding an
 * operator is one entry there (plus its tests and the protocol text).
 *
 * @module
 */
import { filterOnAbstractColumns, useFewerFilterConditions } from './advice/advice.js';
import { S2SPError } from './errors.js';
import { describeType, isPlainObject, parseJsonArgument } from './json.js';
import type { Row } from './resource-result.js';

/** A scalar a filter compares with. */
export type FilterValue = string | number | boolean | null;

/** What an operator takes: one scalar, a list of scalars, a text, or a range bound. */
type OperandKind = 'value' | 'values' | 'text' | 'bound';

/** The TypeScript type of each operand kind. */
interface OperandTypes {
  value: FilterValue;
  values: readonly FilterValue[];
  text: string;
  bound: number | string;
}

/** One operator of the filter grammar. */
interface FilterOperator<K extends OperandKind> {
  /** What the operator takes. */
  readonly operand: K;
  /** What it means, in the words a model reads in the grammar. */
  readonly meaning: string;
  /**
   * The condition made ready to run on many rows: whether a row's value (an absent column is
   * `undefined`) meets it. Made once per filter, so an operand is read (a list turned into a set,
   * a text lowercased) once, not on every row.
   */
  readonly prepare: (operand: OperandTypes[K]) => (value: unknown) => boolean;
}

/**
 * The key equality compares by: strings lowercased (they compare case-insensitively), an absent
 * value as `null`. Objects and lists never equal a scalar: a set looks them up by identity.
 */
const sameKey = (value: unknown): unknown =>
  typeof value === 'string' ? value.toLowerCase() : value === undefined ? null : value;

/** The sign of `value - bound`, or `undefined` when they are not comparable (other types). */
function compare(value: unknown, bound: number | string): number | undefined {
  if (typeof bound === 'number')
    return typeof value === 'number' && Number.isFinite(value) ? value - bound : undefined;
  if (typeof value !== 'string') return undefined;
  return value < bound ? -1 : value > bound ? 1 : 0;
}

function range(meaning: string, holds: (sign: number) => boolean): FilterOperator<'bound'> {
  return {
    operand: 'bound',
    meaning,
    prepare: (bound) => (value) => {
      const sign = compare(value, bound);
      return sign !== undefined && holds(sign);
    },
  };
}

/**
 * The operators of the filter grammar, in the order the grammar lists them. A condition on a
 * column holds when every operator given holds (AND); a filter holds when every condition does.
 * Strings compare case-insensitively; a range never matches a value of the other type.
 */
export const ROW_FILTER_OPERATORS = Object.freeze({
  eq: {
    operand: 'value',
    meaning: 'equals',
    prepare: (operand) => {
      const key = sameKey(operand);
      return (value) => sameKey(value) === key;
    },
  },
  in: {
    operand: 'values',
    meaning: 'equals one of',
    // A set: one lookup per row, not one comparison per value.
    prepare: (list) => {
      const keys = new Set(list.map(sameKey));
      return (value) => keys.has(sameKey(value));
    },
  },
  contains: {
    operand: 'text',
    meaning: 'contains the text (in a string, or in any string of a list)',
    prepare: (text) => {
      const needle = text.toLowerCase();
      return (value) => {
        const texts = Array.isArray(value) ? value : [value];
        return texts.some((t) => typeof t === 'string' && t.toLowerCase().includes(needle));
      };
    },
  },
  gt: range('is greater than', (sign) => sign > 0),
  gte: range('is at least', (sign) => sign >= 0),
  lt: range('is less than', (sign) => sign < 0),
  lte: range('is at most', (sign) => sign <= 0),
} satisfies Record<
  string,
  | FilterOperator<'value'>
  | FilterOperator<'values'>
  | FilterOperator<'text'>
  | FilterOperator<'bound'>
>);

/** The name of a filter operator. */
export type FilterOperatorName = keyof typeof ROW_FILTER_OPERATORS;

/** The condition on one column: every operator given must hold (AND). */
export type ColumnCondition = {
  readonly [K in FilterOperatorName]?: OperandTypes[(typeof ROW_FILTER_OPERATORS)[K]['operand']];
};

/** A parsed filter: conditions by column; a row matches when every condition holds. */
export type RowFilter = Readonly<Record<string, ColumnCondition>>;

/**
 * Caps on a filter's size and work: it comes from a model and is evaluated on every row. `work`
 * bounds rows × conditions (see {@link filterRows}): each operator on a column is one condition,
 * an `in` list included (it is one set lookup per row, whatever its length), so at most 140 a
 * row, and 2,000,000 in all — about 0.2 s of one core when every condition holds (≈ 110 ns a
 * condition a row on Node 20), and a filter of up to 20 conditions on 100,000 rows.
 */
export const FILTER_LIMITS = Object.freeze({
  columns: 20,
  values: 500,
  textLength: 500,
  work: 2_000_000,
});

const NAMES = Object.keys(ROW_FILTER_OPERATORS) as FilterOperatorName[];

const EXAMPLES: Readonly<Record<OperandKind, string>> = {
  value: '"Severe"',
  values: '["Severe", "Extreme"]',
  text: '"flood"',
  bound: '3',
};

/**
 * The grammar a model reads in every filter error, written from the table so that it always
 * lists exactly the operators the parser accepts.
 */
export const ROW_FILTER_GRAMMAR: string =
  'A filter is a JSON object of column conditions, all of which must hold: {"severity": "Severe"} (equals), {"severity": ["Severe", "Extreme"]} (equals one of), or {"column": {operator: operand}} with the operators ' +
  NAMES.map(
    (name) =>
      `${name} (${ROW_FILTER_OPERATORS[name].meaning}, e.g. {"${name}": ${EXAMPLES[ROW_FILTER_OPERATORS[name].operand]}})`,
  ).join(', ') +
  '. Ranges take numbers, or strings such as ISO dates. Strings compare case-insensitively.';

function fail(message: string): never {
  throw new S2SPError('invalid_request', `${message} ${ROW_FILTER_GRAMMAR}`);
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

function list(where: string, value: unknown): FilterValue[] {
  if (!Array.isArray(value)) fail(`${where} must be a list of values.`);
  if (value.length === 0) fail(`${where} is an empty list, which no row matches.`);
  if (value.length > FILTER_LIMITS.values)
    fail(`${where} lists more than ${FILTER_LIMITS.values} values.`);
  return value.map((v, i) => scalar(`${where}[${i}]`, v));
}

/** Reads one operand by its kind; the table says which kind each operator takes. */
const OPERAND_READERS: {
  readonly [K in OperandKind]: (where: string, value: unknown) => OperandTypes[K];
} = {
  value: scalar,
  values: list,
  text: (where, value) => {
    const text = scalar(where, value);
    if (typeof text !== 'string') fail(`${where} must be a string.`);
    return text;
  },
  bound: (where, value) => {
    const bound = scalar(where, value);
    if (typeof bound !== 'number' && typeof bound !== 'string')
      fail(`${where} must be a number or a string.`);
    return bound;
  },
};

function condition(column: string, spec: unknown): ColumnCondition {
  const where = `filter.${column}`;
  if (Array.isArray(spec)) return { in: list(where, spec) };
  if (!isPlainObject(spec)) return { eq: scalar(where, spec) };
  const keys = Object.keys(spec);
  if (keys.length === 0) fail(`${where} is an empty object.`);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (!Object.hasOwn(ROW_FILTER_OPERATORS, key))
      fail(`${where} has the unknown operator "${key}"; use one of ${NAMES.join(', ')}.`);
    const { operand } = ROW_FILTER_OPERATORS[key as FilterOperatorName];
    out[key] = OPERAND_READERS[operand](`${where}.${key}`, spec[key]);
  }
  return out as ColumnCondition;
}

/**
 * Parses a filter on columns (PROTOCOL §7, filters): a JSON object (or its JSON text) mapping
 * each column to a value (equals), a list (equals one of), or an object of the operators in
 * {@link ROW_FILTER_OPERATORS}. Nothing is ever evaluated as code.
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
        `filter names ${unknown.map((c) => JSON.stringify(c)).join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not among the abstract columns (${columns.join(', ')}). ${filterOnAbstractColumns}`,
      );
    }
  }
  const out: Record<string, ColumnCondition> = {};
  for (const name of names) {
    // defineProperty, not assignment: a "__proto__" column must stay a column.
    Object.defineProperty(out, name, {
      value: condition(name, parsed[name]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

type Test = (value: unknown) => boolean;

/** One condition made ready to run on many rows, by its operator's own `prepare`. */
function prepare(name: FilterOperatorName, operand: unknown): Test {
  return (ROW_FILTER_OPERATORS[name] as FilterOperator<OperandKind>).prepare(operand as never);
}

/** A filter made ready to run: its conditions by column, and how many there are. */
interface PreparedFilter {
  readonly columns: readonly (readonly [string, readonly Test[]])[];
  readonly conditions: number;
}

const prepared = new WeakMap<RowFilter, PreparedFilter>();

function prepareFilter(filter: RowFilter): PreparedFilter {
  const found = prepared.get(filter);
  if (found) return found;
  let conditions = 0;
  const columns = Object.keys(filter).map((column) => {
    const spec = filter[column] as Record<string, unknown>;
    const tests = Object.keys(spec).map((name) => prepare(name as FilterOperatorName, spec[name]));
    conditions += tests.length;
    return [column, tests] as const;
  });
  const made = { columns, conditions };
  prepared.set(filter, made);
  return made;
}

/**
 * True when `row` meets every condition of `filter`. An absent column counts as `null`; a range
 * never matches a value of the other type (a string against a number bound). To filter a whole
 * table, use {@link filterRows}, which bounds the work.
 */
export function matchesFilter(row: Row, filter: RowFilter): boolean {
  for (const [column, tests] of prepareFilter(filter).columns) {
    const value = Object.hasOwn(row, column) ? row[column] : undefined;
    for (const test of tests) if (!test(value)) return false;
  }
  return true;
}

/**
 * The rows of a table that meet `filter` (PROTOCOL §7, filters): the one place a server, a
 * consumer and the proxy apply a filter, so that one bound holds for all of them.
 *
 * @param rows - the table's rows
 * @param filter - a filter from {@link parseRowFilter}
 * @throws S2SPError `payload_too_large` when rows × conditions exceeds
 *   {@link FILTER_LIMITS}`.work`, before any row is compared; the message says what to change
 */
export function filterRows<T extends Row>(rows: readonly T[], filter: RowFilter): T[] {
  const { conditions } = prepareFilter(filter);
  const work = rows.length * conditions;
  if (work > FILTER_LIMITS.work) {
    throw new S2SPError(
      'payload_too_large',
      `${conditions} filter conditions × ${rows.length} rows is over the ${FILTER_LIMITS.work} comparisons a call may take. ${useFewerFilterConditions}`,
      { data: { limit: FILTER_LIMITS.work } },
    );
  }
  return rows.filter((row) => matchesFilter(row, filter));
}
