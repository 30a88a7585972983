/**
 * Which upstream tools are table tools, and how the proxy lists them. A tool is a table tool when
 * the operator names it, when its `outputSchema` declares one array of objects at any level (and
 * it is not a write tool echoing its input), or when it has returned a table to this client. A
 * table tool gains the S2SP parameters (under a prefixed name where the tool has a parameter of
 * that name itself) in their short form, one line pointing to the instructions the proxy serves
 * (see `proxy-instructions.ts`), and a column catalogue: its declared columns, or those of the
 * client's own last table result with their token costs. What one client's results teach the
 * proxy shapes only that client's listing: one client's data never shapes what another sees.
 *
 * A tool that declares an `outputSchema` and may answer with S2SP is listed with a schema that
 * both its plain and its S2SP results satisfy, from the first `tools/list` on (see
 * `output-schema.ts`).
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { PROTOCOL, type Row } from '@s2sp/core';
import type { Tool } from '../mcp-sdk.js';
import {
  arraysSentence,
  type ColumnMeasures,
  catalogueSentence,
  declaredColumnsSentence,
  MAX_CATALOGUE_COLUMNS,
  measureColumns,
} from './column-catalogue.js';
import type { TableArray } from './detect/json-document.js';
import type { TableFormat } from './detect/text-formats.js';
import { parseJsonPointer } from './json-pointer.js';
import { createLearnedColumns, type LearnedColumns, type LearnedTable } from './learned-columns.js';
import { fitOutputSchema } from './output-schema.js';
import { EXTENSION_PARAMETERS } from './s2sp-call.js';
import { type SchemaArray, schemaArrays } from './schema-arrays.js';
import type { TableToolRule } from './table-tool-rule.js';

export type { TableToolRule } from './table-tool-rule.js';

/** What the proxy knows of a tool from its declared schema or the operator (kept by `--state`). */
export interface DeclaredTool {
  readonly source: 'declared' | 'config';
  readonly pointer?: readonly string[];
  readonly columns: readonly string[];
}

/** Options for {@link createTableTools}. */
export interface TableToolsOptions {
  /** Tools that are table tools from the start. */
  readonly include?: readonly TableToolRule[];
  /** Tools that are never table tools, whatever they return. */
  readonly exclude?: readonly string[];
  /** Promote a tool to a table tool when it returns a table. Default true. */
  readonly detect?: boolean;
  /** Writes a table tool's description: the upstream's, then S2SP's one line. */
  readonly describe: (description: string | undefined) => string;
  /** JSON Schema properties a table tool gains (their names are S2SP's; see `names`). */
  readonly parameters: () => Readonly<Record<string, Record<string, unknown>>>;
  /** The servers' token estimate and column profile, for the catalogues (`GATEWAY_PARTS`). */
  readonly measures: ColumnMeasures;
  /** The per-client catalogues. Default: a new store with its default bounds. */
  readonly learned?: LearnedColumns;
  /** Declared knowledge from a previous run (`--state`), used until the upstream lists tools. */
  readonly remembered?: Readonly<Record<string, DeclaredTool>>;
  /** Where to warn about a tool whose `outputSchema` cannot be combined with S2SP's. */
  readonly logger?: Logger;
  /**
   * Lists table tools with `_meta["anthropic/alwaysLoad"]: true` (`PROTOCOL.alwaysLoadMeta`), for
   * hosts that defer tools behind a search. Default false.
   */
  readonly alwaysLoad?: boolean;
}

/** How the proxy treats calls to one tool, for one client. */
export interface TableToolInfo {
  /** The tool is (now, for this client) a table tool. */
  readonly table: boolean;
  /**
   * The tool never gets S2SP treatment: excluded, a write tool, or one whose `outputSchema`
   * declares no array of objects (its results are not tables). Its arguments go upstream as sent.
   */
  readonly blocked: boolean;
  /**
   * Why a blocked tool is: the operator excluded it, its annotations say it writes, or its
   * `outputSchema` declares no array of objects.
   */
  readonly blockedBecause?: 'excluded' | 'writes' | 'no-declared-table';
  /**
   * A result of the tool can teach the proxy its columns: it is a table tool, or may become one
   * by what it returns (detection on). A plain call of a tool that learns nothing is not read.
   */
  readonly learns: boolean;
  /** Configured or declared location of the rows. */
  readonly pointer?: readonly string[];
  /** Configured format of the rows. */
  readonly format?: TableFormat;
  /** Columns declared by the tool's `outputSchema`. */
  readonly declaredColumns: readonly string[];
  /**
   * The name each S2SP parameter is listed under for this tool: its own name, or `s2sp_<name>`
   * when the upstream tool has a parameter of that name (which is then forwarded untouched).
   */
  readonly names: Readonly<Record<string, string>>;
}

/** The table-tool registry. */
export interface TableTools {
  /** Remembers the upstream's tool definitions and returns them as `client` sees them. */
  decorate(tools: readonly Tool[], client: string): Tool[];
  info(name: string, client: string): TableToolInfo;
  /** True when the upstream's definition of `name` has been listed. */
  knows(name: string): boolean;
  /** Forgets the upstream's definitions (its tool list changed); learned catalogues stay. */
  forget(): void;
  /**
   * Records a table result of `client`. Returns true when that client's listing changed (a new
   * table tool, or a new column set), so the proxy tells that client's sessions.
   */
  observe(client: string, name: string, rows: readonly Row[], columns: readonly string[]): boolean;
  /**
   * Records the arrays of rows of a result of `client` (its description lists them while the
   * last result had several). Returns true when that client's listing changed.
   */
  observeArrays(client: string, name: string, arrays: readonly TableArray[]): boolean;
  /** Declared and configured knowledge, for `--state`. */
  declared(): Record<string, DeclaredTool>;
  /** The per-client catalogues. */
  readonly learned: LearnedColumns;
}

/** Prefix of the proxy's own parameter where the upstream tool has one of that name. */
export const S2SP_PARAMETER_PREFIX = 's2sp_';

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

type Properties = Record<string, Record<string, unknown>>;

function ownParameters(tool: Tool): string[] {
  return Object.keys((tool.inputSchema.properties as Properties | undefined) ?? {});
}

/**
 * The four hints at the MCP spec's own defaults, as Go's mcp-go (`mcp.NewTool`) writes them on
 * every tool whether or not its author declared anything (`@negokaz/excel-mcp-server` lists its
 * read-only `excel_describe_sheets` so): they say no more than no annotations do.
 */
const SPEC_DEFAULT_HINTS: Readonly<Record<string, boolean>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

function stampedDefaults(annotations: NonNullable<Tool['annotations']>): boolean {
  const hints = Object.entries(annotations).filter(([key]) => key.endsWith('Hint'));
  return (
    hints.length === Object.keys(SPEC_DEFAULT_HINTS).length &&
    hints.every(([key, value]) => SPEC_DEFAULT_HINTS[key] === value)
  );
}

/**
 * The tool says it changes something (MCP annotations): what it returns echoes what it wrote.
 * Annotations at the spec's defaults throughout are no statement (see {@link SPEC_DEFAULT_HINTS}).
 */
function writes(tool: Tool): boolean {
  const annotations = tool.annotations;
  if (!annotations || stampedDefaults(annotations)) return false;
  return annotations.readOnlyHint === false || annotations.destructiveHint === true;
}

/**
 * The arrays of objects the tool's `outputSchema` declares, at any level (`schema-arrays.ts`),
 * less those that echo an input of the same name (`create_entities({entities})` → `{entities}`):
 * none for a write tool.
 */
function declaredArrays(tool: Tool): SchemaArray[] {
  if (!tool.outputSchema || writes(tool)) return [];
  const inputs = ownParameters(tool);
  return schemaArrays(tool.outputSchema as Record<string, unknown>).filter(
    (array) => !inputs.includes(array.pointer.at(-1) ?? ''),
  );
}

/**
 * A declared table: the one array of objects an `outputSchema` declares, at any level, of a tool
 * that does not say it writes, and that is not an echo of an input. A tool declaring several is
 * not blocked: like one whose result has several arrays, it becomes a table tool for a client by
 * what it returns, and a call names the array (`table`; refused listing them when missing).
 */
export function declaredTable(tool: Tool): { pointer: string[]; columns: string[] } | undefined {
  const arrays = declaredArrays(tool);
  const [only] = arrays;
  if (arrays.length !== 1 || !only) return undefined;
  return { pointer: [...only.pointer], columns: [...only.columns] };
}

/**
 * The names the S2SP parameters are listed under for a tool with parameters `own`: each its own
 * name, or prefixed with {@link S2SP_PARAMETER_PREFIX} (repeatedly) until it is free.
 */
export function parameterNames(
  s2sp: readonly string[],
  own: readonly string[],
): Record<string, string> {
  const taken = new Set(own);
  const names: Record<string, string> = {};
  for (const name of s2sp) {
    let listed = name;
    while (taken.has(listed)) listed = `${S2SP_PARAMETER_PREFIX}${listed}`;
    taken.add(listed);
    names[name] = listed;
  }
  return names;
}

function renamedSentence(names: Readonly<Record<string, string>>): string {
  const renamed = Object.entries(names).filter(([name, listed]) => name !== listed);
  if (renamed.length === 0) return '';
  const pairs = renamed.map(([name, listed]) => `${listed} (S2SP's ${name})`).join(', ');
  const own = renamed.map(([name]) => name).join(', ');
  return `\n\nThis tool has its own ${own}: the S2SP parameters are named ${pairs}.`;
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
  const learned = options.learned ?? createLearnedColumns();
  const remembered = options.remembered ?? {};
  const warned = new Set<string>();
  const s2spNames = () => [
    ...new Set([...Object.keys(options.parameters()), ...EXTENSION_PARAMETERS]),
  ];

  const info = (name: string, client: string): TableToolInfo => {
    const tool = upstream.get(name);
    const fallback = tool ? undefined : remembered[name];
    const declared = tool ? declaredTable(tool) : fallback;
    // A tool whose declared results hold no table, or that writes, never becomes one by what it
    // returns: only the operator can make it one.
    const byTool = tool !== undefined && !configured.has(name);
    const why: TableToolInfo['blockedBecause'] = excluded.has(name)
      ? 'excluded'
      : byTool && writes(tool)
        ? 'writes'
        : byTool && tool.outputSchema !== undefined && declaredArrays(tool).length === 0
          ? 'no-declared-table'
          : undefined;
    const blocked = why !== undefined;
    const pointer = configured.get(name) ?? declared?.pointer;
    const format = formats.get(name);
    const table =
      !blocked &&
      (configured.has(name) || declared !== undefined || learned.get(client, name) !== undefined);
    return {
      ...(format && { format }),
      table,
      blocked,
      ...(why && { blockedBecause: why }),
      learns: table || (!blocked && detect),
      ...(pointer && { pointer }),
      declaredColumns: declared?.columns ?? [],
      names: parameterNames(s2spNames(), tool ? ownParameters(tool) : []),
    };
  };

  /** The upstream's outputSchema as listed to a client that may get S2SP results from the tool. */
  const outputSchema = (tool: Tool): Pick<Tool, 'outputSchema'> | { unfit: string } => {
    if (!tool.outputSchema) return {};
    const fitted = fitOutputSchema(tool.outputSchema);
    if (fitted.ok) return { outputSchema: fitted.schema };
    if (!warned.has(tool.name)) {
      warned.add(tool.name);
      options.logger?.warn(
        'tool list: the outputSchema of a table tool cannot be combined with the S2SP result; listed without it',
        { tool: tool.name.slice(0, 128), reason: fitted.reason },
      );
    }
    return { unfit: fitted.reason };
  };

  const decorateOne = (tool: Tool, client: string): Tool => {
    const about = info(tool.name, client);
    if (about.blocked) return tool;
    const { outputSchema: _upstreamSchema, ...rest } = tool;
    const schema = outputSchema(tool);
    const unfit =
      'unfit' in schema
        ? `\n\n(Listed without its output schema, which cannot also describe the S2SP result: ${schema.unfit}.)`
        : '';
    const listedSchema = 'unfit' in schema ? {} : schema;
    if (!about.table && !tool.outputSchema) return tool;
    if (!about.table) {
      // Not a table tool (yet) for this client: as upstream, but with an outputSchema its S2SP
      // results will also satisfy, so a client never validates one against the plain schema.
      return 'unfit' in schema
        ? { ...rest, description: `${tool.description ?? ''}${unfit}` }
        : { ...rest, ...listedSchema };
    }
    const own = (tool.inputSchema.properties ?? {}) as Properties;
    const added = Object.entries(options.parameters()).map(
      ([key, value]) => [about.names[key] ?? key, value] as const,
    );
    const mine: LearnedTable | undefined = learned.get(client, tool.name);
    const columns =
      mine && mine.columns.length > 0
        ? catalogueSentence(mine.columns, mine.total)
        : about.declaredColumns.length > 0
          ? declaredColumnsSentence(about.declaredColumns)
          : '';
    // This client's own last result only, like the catalogue.
    const arrays = mine?.arrays ? arraysSentence(mine.arrays, mine.totalArrays) : '';
    return {
      ...rest,
      ...listedSchema,
      ...(options.alwaysLoad && { _meta: { ...tool._meta, [PROTOCOL.alwaysLoadMeta]: true } }),
      description:
        options.describe(ownDescription(tool.description)) +
        renamedSentence(about.names) +
        columns +
        arrays +
        unfit,
      inputSchema: {
        ...tool.inputSchema,
        properties: { ...own, ...Object.fromEntries(added) },
      },
    };
  };

  return {
    decorate(tools, client) {
      for (const tool of tools) upstream.set(tool.name, tool);
      return tools.map((tool) => decorateOne(tool, client));
    },
    info,
    knows: (name) => upstream.has(name),
    forget: () => upstream.clear(),
    observe(client, name, rows, columns) {
      if (!info(name, client).learns) return false;
      // Only the columns a description lists are measured: a table may have thousands.
      const measured = measureColumns(
        rows,
        columns.slice(0, MAX_CATALOGUE_COLUMNS),
        options.measures,
      );
      return learned.set(client, name, measured, columns.length);
    },
    observeArrays(client, name, arrays) {
      if (!info(name, client).learns) return false;
      // One array (or none) lists nothing: no entry for it, and none made.
      if (arrays.length < 2 && !learned.get(client, name)?.arrays) return false;
      return learned.setArrays(client, name, arrays);
    },
    declared() {
      const out: Record<string, DeclaredTool> = {};
      for (const [name, tool] of upstream) {
        const declared = declaredTable(tool);
        if (declared) out[name] = { source: 'declared', ...declared };
      }
      for (const [name, pointer] of configured) {
        out[name] = {
          source: 'config',
          ...(pointer && { pointer }),
          columns: out[name]?.columns ?? [],
        };
      }
      return out;
    },
    learned,
  };
}
