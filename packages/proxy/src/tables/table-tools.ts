/**
 * Which upstream tools are table tools, and how the proxy lists them: a tool named in the
 * configuration, a tool whose `outputSchema` declares an array of objects, or a tool that has
 * returned a table, gains `abstract_domains`, `mode`, the extensions `filter` and `cursor` (those
 * it does not declare itself) and the S2SP guidance; once the proxy has seen a table from it, its
 * description lists the columns.
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import type { Tool } from '../mcp-sdk.js';
import { parseJsonPointer } from './json-pointer.js';
import { EXTENSION_PARAMETERS } from './s2sp-call.js';
import type { TableFormat } from './table-detect.js';

/** A tool named as a table tool, optionally with where its rows are. */
export interface TableToolRule {
  readonly name: string;
  /** JSON Pointer to the rows inside the result (`/rows`). Default: detected. */
  readonly pointer?: string;
  /** The format the rows come in; only it is tried. Default: detected. */
  readonly format?: TableFormat;
}

/** Options for {@link createTableTools}. */
export interface TableToolsOptions {
  /** Tools that are table tools from the start. */
  readonly include?: readonly TableToolRule[];
  /** Tools that are never table tools, whatever they return. */
  readonly exclude?: readonly string[];
  /** Promote a tool to a table tool when it returns a table. Default true. */
  readonly detect?: boolean;
  /** Writes the S2SP guidance for a table tool's description. */
  readonly describe: (description: string | undefined) => string;
  /** JSON Schema properties a table tool gains, less those it declares itself. */
  readonly parameters: () => Readonly<Record<string, Record<string, unknown>>>;
}

/** How the proxy treats calls to one tool. */
export interface TableToolInfo {
  /** The tool is (now) a table tool. */
  readonly table: boolean;
  /** The tool may never get S2SP treatment (excluded, or it has its own `abstract_domains`). */
  readonly blocked: boolean;
  /** Configured or declared location of the rows. */
  readonly pointer?: readonly string[];
  /** Configured format of the rows. */
  readonly format?: TableFormat;
  /** Columns declared by the tool's `outputSchema`. */
  readonly declaredColumns: readonly string[];
  /**
   * The S2SP extension parameters (`filter`, `cursor`) that are S2SP's for this tool: not declared
   * by the upstream tool, whose own parameter of that name is forwarded untouched instead.
   */
  readonly extensions: readonly string[];
}

/** The table-tool registry. */
export interface TableTools {
  /** Remembers the upstream's tool definitions and returns them as the proxy lists them. */
  decorate(tools: readonly Tool[]): Tool[];
  info(name: string): TableToolInfo;
  /** True when the upstream's definition of `name` has been listed. */
  knows(name: string): boolean;
  /** Forgets the upstream's definitions (its tool list changed); learned columns stay. */
  forget(): void;
  /**
   * Records a table result's columns. Returns true when the listing changed (a new table tool,
   * or a new column set), so the proxy sends `notifications/tools/list_changed`.
   */
  observe(name: string, columns: readonly string[]): boolean;
}

const MAX_LISTED_COLUMNS = 50;
const MAX_COLUMN_CHARS = 64;
/**
 * The upstream's own description of a table tool, at most this many characters: the proxy adds
 * its guidance after it, and a tools/list the model reads must stay within reason whatever the
 * upstream writes.
 */
const MAX_DESCRIPTION_CHARS = 4_000;

function ownDescription(description: string | undefined): string | undefined {
  if (description === undefined || description.length <= MAX_DESCRIPTION_CHARS) return description;
  const more = description.length - MAX_DESCRIPTION_CHARS;
  return `${description.slice(0, MAX_DESCRIPTION_CHARS)} … (${more.toLocaleString('en-US')} more characters left out by the proxy)`;
}

interface Declared {
  readonly pointer: string[];
  readonly columns: string[];
}

/** A declared table: an `outputSchema` whose only array-of-objects property is the rows. */
export function declaredTable(tool: Tool): Declared | undefined {
  const properties = tool.outputSchema?.properties;
  if (!properties || typeof properties !== 'object') return undefined;
  const arrays = Object.entries(properties as Record<string, Record<string, unknown>>).filter(
    ([, schema]) =>
      schema?.type === 'array' &&
      typeof schema.items === 'object' &&
      (schema.items as Record<string, unknown>)?.type === 'object',
  );
  const [only] = arrays;
  if (arrays.length !== 1 || !only) return undefined;
  const items = only[1].items as { properties?: Record<string, unknown> };
  return { pointer: [only[0]], columns: Object.keys(items.properties ?? {}) };
}

function ownParameters(tool: Tool): string[] {
  return Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
}

function columnsSentence(columns: readonly string[]): string {
  const shown = columns
    .slice(0, MAX_LISTED_COLUMNS)
    .map((c) =>
      JSON.stringify(c.length > MAX_COLUMN_CHARS ? `${c.slice(0, MAX_COLUMN_CHARS)}…` : c),
    );
  const more =
    columns.length > shown.length
      ? ` … and ${(columns.length - shown.length).toLocaleString('en-US')} more`
      : '';
  // Column names are the upstream's data: label them as such for the model.
  return `\n\nColumns of its most recent table result (names as the upstream server reported them): ${shown.join(', ')}${more}.`;
}

/** Creates the registry. */
export function createTableTools(options: TableToolsOptions): TableTools {
  const configured = new Map<string, string[] | undefined>(
    (options.include ?? []).map((rule) => [
      rule.name,
      rule.pointer === undefined ? undefined : parseJsonPointer(rule.pointer),
    ]),
  );
  const formats = new Map((options.include ?? []).map((rule) => [rule.name, rule.format]));
  const excluded = new Set(options.exclude ?? []);
  const detect = options.detect ?? true;
  const upstream = new Map<string, Tool>();
  const observed = new Map<string, readonly string[]>();

  const info = (name: string): TableToolInfo => {
    const tool = upstream.get(name);
    const own = tool ? ownParameters(tool) : [];
    const clash = own.some((p) => PROTOCOL.resourceToolParameters.includes(p));
    const declared = tool ? declaredTable(tool) : undefined;
    const blocked = excluded.has(name) || clash;
    const pointer = configured.get(name) ?? declared?.pointer;
    const format = formats.get(name);
    return {
      ...(format && { format }),
      table: !blocked && (configured.has(name) || declared !== undefined || observed.has(name)),
      blocked,
      ...(pointer && { pointer }),
      declaredColumns: declared?.columns ?? [],
      extensions: blocked ? [] : EXTENSION_PARAMETERS.filter((p) => !own.includes(p)),
    };
  };

  const decorateOne = (tool: Tool): Tool => {
    if (!info(tool.name).table) return tool;
    const { outputSchema: _dropped, ...rest } = tool;
    const columns = observed.get(tool.name) ?? declaredTable(tool)?.columns;
    const own = tool.inputSchema.properties ?? {};
    // A parameter the upstream declares stays its own (PROTOCOL §7.2): never overwritten.
    const added = Object.entries(options.parameters()).filter(([key]) => !Object.hasOwn(own, key));
    return {
      ...rest,
      // No outputSchema: the S2SP object is not the upstream's declared shape (PROTOCOL §2).
      description:
        options.describe(ownDescription(tool.description)) +
        (columns && columns.length > 0 ? columnsSentence(columns) : ''),
      inputSchema: {
        ...tool.inputSchema,
        properties: { ...own, ...Object.fromEntries(added) },
      },
    };
  };

  return {
    decorate(tools) {
      for (const tool of tools) upstream.set(tool.name, tool);
      return tools.map(decorateOne);
    },
    info,
    knows: (name) => upstream.has(name),
    forget: () => upstream.clear(),
    observe(name, columns) {
      const before = info(name);
      if (before.blocked || (!detect && !before.table)) return false;
      const previous = observed.get(name);
      observed.set(name, [...columns]);
      if (!before.table) return true;
      return previous === undefined || previous.join('\0') !== columns.join('\0');
    },
  };
}
