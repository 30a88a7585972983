import { PROTOCOL, S2SPError } from '@s2sp/core';
import { z } from 'zod';
import { RESOURCE_PARAMETER_TEXT, RESOURCE_TOOL_LINE, resourceToolHowTo } from '../guidance.js';
import { clientKey } from '../limits/client-quota.js';
import type { ToolCall } from '../mcp/tool-call.js';
import { shapeOf, type ToolParameters } from '../mcp/tool-shape.js';
import type { CallToolResult, ToolAnnotations } from '../mcp-sdk.js';
import { ModeSchema } from './s2sp-result.js';
import { answerTableCall, type TableResultRuntime } from './table-result.js';

/** Configuration of a resource tool. */
export interface ResourceToolConfig<TShape extends z.ZodRawShape> {
  /** Human-readable name for UIs. */
  readonly title?: string;
  /** What the tool returns. S2SP appends how to use `abstract_domains` and `mode`. */
  readonly description: string;
  /**
   * The tool's own parameters: a zod shape (`{ area: z.string() }`) or object
   * (`z.object({ area: z.string() })`, as SDK v2 writes them).
   */
  readonly inputSchema?: ToolParameters<TShape>;
  /**
   * The shape of one row. Its keys (and `.describe()` texts) are listed in the tool description,
   * so the LLM can pick `abstract_domains` without a first plain call. Rows are not validated
   * against it: an upstream that adds a field must not break the tool.
   */
  readonly rowSchema?: z.ZodObject;
  /** MCP tool annotations (`readOnlyHint`, …). */
  readonly annotations?: ToolAnnotations;
  /**
   * Token budget of this tool's control-plane response (o200k_base tokens, estimated), when it
   * differs from the server's `tokenBudget`. A larger abstract is paged (PROTOCOL §7).
   */
  readonly tokenBudget?: number;
}

/**
 * A resource tool's handler: returns the table as an array of plain JSON objects. Its second
 * argument is what the `McpServer`'s SDK gives any tool handler: `ctx` on SDK v2, `extra` on v1.
 */
export type ResourceToolHandler<TShape extends z.ZodRawShape, TCall = ToolCall> = (
  args: z.infer<z.ZodObject<TShape>>,
  call: TCall,
) => readonly object[] | Promise<readonly object[]>;

// The short forms declare their JSON Schema by hand: zod's `.nullish()` unions cost a model
// tokens on every tools/list, and the runtime checks (and null-tolerance) are S2SP's own anyway.
const declared = (schema: Record<string, unknown>) => z.unknown().meta(schema).optional();

/**
 * The two parameters without descriptions, when the how-to (which explains each by name) is in the
 * server's instructions.
 */
export const shortResourceParameters = {
  abstract_domains: declared({ type: ['string', 'array', 'null'], items: { type: 'string' } }),
  mode: declared({ enum: ['async', 'sync', null] }),
};

/** The extension parameters without descriptions (the grammar is in the instructions). */
export const shortExtensionParameters = {
  filter: declared({ type: ['object', 'string', 'null'] }),
  cursor: declared({ type: ['string', 'null'] }),
};

/**
 * All four S2SP parameters of a resource tool in their short form (the two of PROTOCOL §2 and the
 * extensions), as a server lists them with `toolGuidance: "instructions"`: for a server that lists
 * S2SP tools of its own making (the S2SP proxy does) and serves the how-to, `S2SP.instructions`,
 * once in its MCP `instructions`. Zod schemas, so that they list as the SDK's `McpServer` lists
 * them (`z.toJSONSchema`).
 */
export const shortResourceToolParameters = {
  ...shortResourceParameters,
  ...shortExtensionParameters,
};

/**
 * The two parameters S2SP adds to every resource tool (PROTOCOL §2). Both accept `null` as absent,
 * which strict-schema clients (OpenAI Agents) send for every parameter the model leaves out.
 */
export const resourceParameters = {
  abstract_domains: z
    .union([z.string(), z.array(z.string()), z.null()])
    .optional()
    .describe(RESOURCE_PARAMETER_TEXT.abstract_domains),
  mode: ModeSchema.nullable().optional().describe(RESOURCE_PARAMETER_TEXT.mode),
};

/**
 * The optional parameters S2SP adds besides the two of PROTOCOL §2 (extensions, PROTOCOL §7). A
 * tool that declares a parameter of the same name keeps its own, and that extension is off for it.
 */
export const resourceExtensionParameters = {
  filter: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .nullish()
    .describe(RESOURCE_PARAMETER_TEXT.filter),
  cursor: z.string().nullish().describe(RESOURCE_PARAMETER_TEXT.cursor),
};

/** The S2SP extension parameters a tool gets: those its own parameters do not already use. */
export function extensionParametersFor(shape: z.ZodRawShape, short = false): z.ZodRawShape {
  return Object.fromEntries(
    Object.entries(short ? shortExtensionParameters : resourceExtensionParameters).filter(
      ([key]) => !Object.hasOwn(shape, key),
    ),
  );
}

function describeColumns(rowSchema: z.ZodObject | undefined, listedBy?: string): string {
  if (!rowSchema) return '';
  if (listedBy) return ` Columns: as ${listedBy}.`;
  const lines = Object.entries(rowSchema.shape).map(([name, schema]) => {
    const text = (schema as z.ZodType).description;
    return text ? `${name} (${text})` : name;
  });
  return ` Columns: ${lines.join(', ')}.`;
}

/**
 * The tool description: the author's text, then how S2SP works for this tool (PROTOCOL §2 SHOULD:
 * few abstract columns, single-use URL with its TTL, the column list when known). With
 * `guidance: "instructions"` one short line replaces the how-to, which the server's MCP
 * `instructions` then carry once, and a row schema another tool already listed is named by that
 * tool (`listedBy`) instead of being listed again.
 */
export function resourceToolDescription(
  description: string,
  ttlMs: number,
  rowSchema?: z.ZodObject,
  guidance: 'description' | 'instructions' = 'description',
  listedBy?: string,
): string {
  if (guidance === 'instructions')
    return `${description.trim()}\n\n${RESOURCE_TOOL_LINE}${describeColumns(rowSchema, listedBy)}`;
  return `${description.trim()}\n\n${resourceToolHowTo(ttlMs)}${describeColumns(rowSchema)}`;
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
export function createResourceToolCallback<TShape extends z.ZodRawShape, TCall extends ToolCall>(
  name: string,
  config: ResourceToolConfig<TShape>,
  handler: ResourceToolHandler<TShape, TCall>,
  runtime: TableResultRuntime,
): (args: Record<string, unknown>, call: TCall) => Promise<CallToolResult> {
  const shape = shapeOf(config.inputSchema);
  assertNoReservedParameters(name, shape, PROTOCOL.resourceToolParameters);
  const knownColumns = config.rowSchema ? Object.keys(config.rowSchema.shape) : [];
  const extensions = Object.keys(extensionParametersFor(shape));

  return async (args, call) => {
    const { abstract_domains, mode, ...own } = args;
    const s2spArgs: Record<string, unknown> = { abstract_domains, mode };
    for (const key of extensions) {
      s2spArgs[key] = own[key];
      delete own[key];
    }
    return answerTableCall(
      s2spArgs,
      () => handler(own as z.infer<z.ZodObject<TShape>>, call),
      runtime,
      {
        toolName: name,
        call,
        knownColumns,
        client: clientKey(call),
        paging: extensions.includes('cursor'),
        ...(config.tokenBudget !== undefined && { tokenBudget: config.tokenBudget }),
      },
    );
  };
}
