/**
 * What the proxy learns from table results, kept per downstream client (`clientKey`: its
 * authenticated id, else its address). Column names in a result may be text another client chose
 * (`SELECT … AS "<text>"`), so one client's results never shape another client's tool
 * descriptions (issue 26). Bounded: clients × tools × columns, least recently used first out.
 *
 * @module
 */

import {
  type CatalogueColumn,
  MAX_CATALOGUE_COLUMNS,
  MAX_COLUMN_CHARS,
} from './column-catalogue.js';

/** One tool's learned catalogue for one client. */
export interface LearnedTable {
  /** The first {@link MAX_CATALOGUE_COLUMNS} columns, names cut to {@link MAX_COLUMN_CHARS}. */
  readonly columns: readonly CatalogueColumn[];
  /** How many columns the table had. */
  readonly total: number;
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

  return {
    get(client, tool) {
      return clients.get(client)?.get(tool);
    },
    set(client, tool, measured, total) {
      let tools = touch(client);
      if (!tools) {
        tools = new Map();
        clients.set(client, tools);
        for (const oldest of clients.keys()) {
          if (clients.size <= maxClients) break;
          clients.delete(oldest);
        }
      }
      const columns = measured.slice(0, MAX_CATALOGUE_COLUMNS).map((column) => ({
        ...column,
        name: column.name.slice(0, MAX_COLUMN_CHARS),
      }));
      const previous = tools.get(tool);
      tools.delete(tool);
      tools.set(tool, { columns, total: Math.max(total, columns.length) });
      for (const oldest of tools.keys()) {
        if (tools.size <= maxTools) break;
        tools.delete(oldest);
      }
      const names = (table: LearnedTable | undefined) =>
        table ? `${table.total}\0${table.columns.map((c) => c.name).join('\0')}` : undefined;
      return names(previous) !== names(tools.get(tool));
    },
    entries: () => [...clients].map(([client, tools]) => [client, [...tools]]),
    size: () => clients.size,
  };
}
