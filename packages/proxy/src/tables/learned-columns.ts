/**
 * What the proxy learns from table results, kept per downstream client (`clientKey`: its
 * authenticated id, else its address). Column names in a result may be text another client chose
 * (`SELECT … AS "<text>"`), so one client's results never shape another client's tool
 * descriptions, so that one client cannot see the columns of another. Bounded: clients × tools × columns, least recently used first out.
 *
 * @module
 */

import {
  type CatalogueColumn,
  MAX_CATALOGUE_COLUMNS,
  MAX_COLUMN_CHARS,
} from './column-catalogue.js';

/** Arrays of a result listed in a tool's description, at most. */
export const MAX_LISTED_ARRAYS = 10;

/** An array of rows in a result, as a description lists it. */
export interface LearnedArray {
  /** JSON Pointer (or member name) in the result, cut to {@link MAX_COLUMN_CHARS}. */
  readonly pointer: string;
  readonly rows: number;
}

/** One tool's learned catalogue for one client. */
export interface LearnedTable {
  /** The first {@link MAX_CATALOGUE_COLUMNS} columns, names cut to {@link MAX_COLUMN_CHARS}. */
  readonly columns: readonly CatalogueColumn[];
  /** How many columns the table had. */
  readonly total: number;
  /**
   * The arrays of rows of the client's last result of the tool, when it had several (the model
   * names one with `table`): the first {@link MAX_LISTED_ARRAYS}. Not kept by `--state`.
   */
  readonly arrays?: readonly LearnedArray[];
  /** How many arrays that result had. */
  readonly totalArrays?: number;
}

/** Options for {@link createLearnedColumns}. */
export interface LearnedColumnsOptions {
  /** Clients whose catalogues are kept. Default 1,000. */
  readonly maxClients?: number;
  /** Tools kept per client. Default 100. */
  readonly maxToolsPerClient?: number;
}

/** The per-client catalogues. */
export interface LearnedColumns {
  get(client: string, tool: string): LearnedTable | undefined;
  /**
   * Keeps a result's catalogue; true when the client's listing changes (the tool is new to it, or
   * its column names changed) — costs alone change silently.
   */
  set(client: string, tool: string, columns: readonly CatalogueColumn[], total: number): boolean;
  /**
   * Keeps the arrays of a result (listed only when there are several), beside the columns
   * learned before; true when the client's listing changes.
   */
  setArrays(client: string, tool: string, arrays: readonly LearnedArray[]): boolean;
  /** Every client's catalogues, most recently used last. */
  entries(): [string, [string, LearnedTable][]][];
  /** Clients kept now. */
  size(): number;
}

/** Creates the store. */
export function createLearnedColumns(options: LearnedColumnsOptions = {}): LearnedColumns {
  const maxClients = options.maxClients ?? 1_000;
  const maxTools = options.maxToolsPerClient ?? 100;
  const clients = new Map<string, Map<string, LearnedTable>>();

  const touch = (client: string) => {
    const tools = clients.get(client);
    if (!tools) return undefined;
    clients.delete(client);
    clients.set(client, tools);
    return tools;
  };

  /** Replaces one tool's entry for a client; true when what its listing shows changed. */
  const put = (
    client: string,
    tool: string,
    next: (previous: LearnedTable | undefined) => LearnedTable,
  ): boolean => {
    let tools = touch(client);
    if (!tools) {
      tools = new Map();
      clients.set(client, tools);
      for (const oldest of clients.keys()) {
        if (clients.size <= maxClients) break;
        clients.delete(oldest);
      }
    }
    const previous = tools.get(tool);
    tools.delete(tool);
    tools.set(tool, next(previous));
    for (const oldest of tools.keys()) {
      if (tools.size <= maxTools) break;
      tools.delete(oldest);
    }
    const shown = (table: LearnedTable | undefined) =>
      table
        ? JSON.stringify([
            table.total,
            table.columns.map((c) => c.name),
            table.totalArrays,
            table.arrays,
          ])
        : undefined;
    return shown(previous) !== shown(tools.get(tool));
  };

  return {
    get(client, tool) {
      return clients.get(client)?.get(tool);
    },
    set(client, tool, measured, total) {
      const columns = measured.slice(0, MAX_CATALOGUE_COLUMNS).map((column) => ({
        ...column,
        name: column.name.slice(0, MAX_COLUMN_CHARS),
      }));
      return put(client, tool, (previous) => ({
        ...previous,
        columns,
        total: Math.max(total, columns.length),
      }));
    },
    setArrays(client, tool, arrays) {
      const listed =
        arrays.length > 1
          ? arrays.slice(0, MAX_LISTED_ARRAYS).map((array) => ({
              pointer: array.pointer.slice(0, MAX_COLUMN_CHARS),
              rows: array.rows,
            }))
          : undefined;
      return put(client, tool, (previous) => {
        const {
          arrays: _arrays,
          totalArrays: _total,
          ...kept
        } = previous ?? {
          columns: [],
          total: 0,
        };
        return listed ? { ...kept, arrays: listed, totalArrays: arrays.length } : kept;
      });
    },
    entries: () => [...clients].map(([client, tools]) => [client, [...tools]]),
    size: () => clients.size,
  };
}
