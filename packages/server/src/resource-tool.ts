import { ModeSchema, RESOURCE_TOOL_PARAMETERS, S2SPError } from '@s2sp/core';
import { errorCode } from '@s2sp/core/internal';
import { z } from 'zod';
import { clientKey } from './client-quota.js';
import type { CallToolResult, ToolAnnotations, ToolExtra } from './mcp-sdk.js';
import {
  buildTableResult,
  parseTableRequest,
  type TableRequest,
  type TableResultRuntime,
} from './table-result.js';
import { errorResult } from './tool-result.js';

/** Configuration of a resource tool. */
export interface ResourceToolConfig<TShape extends z.ZodRawShape> {
  /** Human-readable name for UIs. */
  readonly title?: string;
  /** What the tool returns. S2SP appends how to use `abstract_domains` and `mode`. */
  readonly description: string;
  /** The tool's own parameters, as a zod shape (`{ area: z.string() }`). */
  readonly inputSchema?: TShape;
  /**
   * The shape of one row. Its keys (and `.describe()` texts) are listed in the tool description,
   * so the LLM can pick `abstract_domains` without a first plain call. Rows are not validated
   * against it: an upstream that adds a field must not break the tool.
   */
  readonly rowSchema?: z.ZodObject;
  /** MCP tool annotations (`readOnlyHint`, …). */
  readonly annotations?: ToolAnnotations;
}

/** A resource tool's handler: returns the table as an array of plain JSON objects. */
export type ResourceToolHandler<TShape extends z.ZodRawShape> = (
  args: z.infer<z.ZodObject<TShape>>,
  extra: ToolExtra,
) => readonly object[] | Promise<readonly object[]>;

/** The two parameters S2SP adds to every resource tool (PROTOCOL §2). */
export const resourceParameters = {
  abstract_domains: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(
      'Columns you need to see to filter or reason, as few as possible: a comma-separated string ("event,severity") or a JSON array. Omit for a plain result with every column.',
    ),
  mode: ModeSchema.optional().describe(
    '"async" (default): the other columns stay on this server behind a single-use resource_url. "sync": they come back inline as body (for agents whose S2SP client keeps them out of the model).',
  ),
};

function describeColumns(rowSchema: z.ZodObject | undefined): string {
  if (!rowSchema) return '';
  const lines = Object.entries(rowSchema.shape).map(([name, schema]) => {
    const text = (schema as z.ZodType).description;
    return text ? `${name} (${text})` : name;
  });
  return ` Columns: ${lines.join(', ')}.`;
}

/**
 * The tool description: the author's text, then how S2SP works for this tool (PROTOCOL §2 SHOULD:
 * few abstract columns, single-use URL with its TTL, the column list when known).
 */
export function resourceToolDescription(
  description: string,
  ttlMs: number,
  rowSchema?: z.ZodObject,
): string {
  const minutes = Math.round(ttlMs / 60_000);
  const ttl =
    minutes >= 1
      ? `${minutes} minute${minutes === 1 ? '' : 's'}`
      : `${Math.round(ttlMs / 1000)} seconds`;
  return (
    `${description.trim()}\n\n` +
    'S2SP: this tool returns a table. Set abstract_domains to the FEW columns you need to filter or reason; you get those columns plus a _row_id per row, and a resource_url for the full rows. ' +
    'Pass the rows you keep (with their _row_id) and the resource_url to an S2SP consumer tool, which fetches the remaining columns directly. ' +
    `The resource_url works once and expires after ${ttl}.` +
    describeColumns(rowSchema)
  );
}

/** Throws if a tool's own parameters use a name S2SP reserves. */
export function assertNoReservedParameters(
  toolName: string,
  shape: z.ZodRawShape,
  reserved: readonly string[],
): void {
  const clash = Object.keys(shape).filter((key) => reserved.includes(key));
  if (clash.length > 0) {
    throw new S2SPError(
      'invalid_config',
      `Tool "${toolName}" declares ${clash.map((c) => `"${c}"`).join(', ')}, which S2SP adds to the tool itself. Rename the parameter.`,
    );
  }
}

/**
 * Builds the MCP callback of a resource tool: check the S2SP arguments, run the handler, then
 * the plain result or the column split (PROTOCOL §2). Every failure is a tool error result.
 *
 * @throws S2SPError `invalid_config` at once when the tool's own parameters use a reserved name
 */
export function createResourceToolCallback<TShape extends z.ZodRawShape>(
  name: string,
  config: ResourceToolConfig<TShape>,
  handler: ResourceToolHandler<TShape>,
  runtime: TableResultRuntime,
): (args: Record<string, unknown>, extra: ToolExtra) => Promise<CallToolResult> {
  assertNoReservedParameters(name, config.inputSchema ?? {}, RESOURCE_TOOL_PARAMETERS);
  const knownColumns = config.rowSchema ? Object.keys(config.rowSchema.shape) : [];

  return async (args, extra) => {
    const { abstract_domains, mode, ...own } = args;
    try {
      const request: TableRequest = parseTableRequest({ abstract_domains, mode });
      const rows = await handler(own as z.infer<z.ZodObject<TShape>>, extra);
      return await buildTableResult(rows, request, runtime, {
        toolName: name,
        requestInfo: extra.requestInfo,
        knownColumns,
        client: clientKey(extra),
      });
    } catch (error) {
      runtime.logger.warn('resource tool: failed', { tool: name, code: errorCode(error) });
      return errorResult(error);
    }
  };
}
