import { PROTOCOL, S2SPError } from '@s2sp/core';
import { callResourceToolAgainAsync } from '@s2sp/core/advice';

/** Where one table's rows come from: the S2SP consumer arguments of PROTOCOL §4 and §7. */
export interface TableSourceArguments {
  readonly resource_url?: unknown;
  readonly body_data?: unknown;
  readonly abstract_data?: unknown;
  readonly row_ids?: unknown;
  readonly filter?: unknown;
  readonly column_mapping?: unknown;
}

/** One entry of `tables`: the name the SQL uses, and its source. */
export interface TableSource {
  readonly name: string;
  readonly source: TableSourceArguments;
}

/** Table names the SQL may use: plain identifiers, so the model never has to quote them. */
export const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const SOURCE_KEYS: readonly (keyof TableSourceArguments)[] = [
  'resource_url',
  'body_data',
  'abstract_data',
  'row_ids',
  'filter',
  'column_mapping',
];

const EXAMPLE =
  'tables maps each table name your SQL uses to the resource_url the resource tool returned, e.g. {"alerts": "https://…/s2sp/data/…"}, or to an object {"resource_url": "…", "row_ids": [0, 2]} (also filter, abstract_data, column_mapping; or body_data with inline rows).';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function parseSource(name: string, value: unknown): TableSourceArguments {
  if (typeof value === 'string') return checked(name, { resource_url: value });
  if (!isPlainObject(value)) {
    throw new S2SPError(
      'invalid_request',
      `tables.${name} must be a resource_url string or an object. ${EXAMPLE}`,
    );
  }
  const unknown = Object.keys(value).filter(
    (key) => !(SOURCE_KEYS as readonly string[]).includes(key),
  );
  if (unknown.length > 0) {
    throw new S2SPError(
      'invalid_request',
      `tables.${name} has ${unknown.length === 1 ? 'a member' : 'members'} this tool does not know (${unknown
        .slice(0, 5)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join(', ')}); use ${SOURCE_KEYS.join(', ')}.`,
    );
  }
  const source: Record<string, unknown> = {};
  for (const key of SOURCE_KEYS) if (value[key] !== undefined) source[key] = value[key];
  return checked(name, source);
}

function checked(name: string, source: TableSourceArguments): TableSourceArguments {
  const url = source.resource_url;
  if (typeof url === 'string' && url.trim().toLowerCase().startsWith(PROTOCOL.ddiScheme)) {
    // An S2SP client swaps a handle for its rows at any `resource_url` member, so one reaching
    // this server was a bare string (no member to swap at) or went through a client without S2SP.
    throw new S2SPError(
      'invalid_request',
      `tables.${name} is a ddi:// handle (sync mode) that reached this server instead of its rows. Write it as {"${name}": {"resource_url": "ddi://…"}}: your S2SP client swaps a handle for its rows only at a resource_url member. If your client does not run S2SP: ${callResourceToolAgainAsync}`,
    );
  }
  if (source.resource_url === undefined && source.body_data === undefined) {
    throw new S2SPError(
      'invalid_request',
      `tables.${name} has neither resource_url nor body_data. ${EXAMPLE}`,
    );
  }
  return source;
}

/**
 * Parses the `tables` argument: a JSON object (or its text) from table names to sources.
 *
 * @param value - the argument as sent
 * @param maxTables - most tables one call may load
 * @throws S2SPError `invalid_request` with advice for the model; `payload_too_large` for too many
 */
export function parseTables(value: unknown, maxTables: number): TableSource[] {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new S2SPError('invalid_request', `tables is not valid JSON. ${EXAMPLE}`);
    }
  }
  if (!isPlainObject(parsed) || Object.keys(parsed).length === 0) {
    throw new S2SPError('invalid_request', `tables is required. ${EXAMPLE}`);
  }
  const names = Object.keys(parsed);
  if (names.length > maxTables) {
    throw new S2SPError(
      'payload_too_large',
      `tables names ${names.length} tables; one call loads at most ${maxTables}.`,
    );
  }
  return names.map((name) => {
    if (!TABLE_NAME.test(name)) {
      throw new S2SPError(
        'invalid_request',
        `"${name.slice(0, 40)}" is not a usable table name: use letters, digits and _ (not starting with a digit), at most 63 characters.`,
      );
    }
    return { name, source: parseSource(name, parsed[name]) };
  });
}
