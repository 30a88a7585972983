import { type Logger, PROTOCOL, type RowWithId, S2SPError } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import type { z } from 'zod';
import { mcpProgress } from '../mcp/mcp-progress.js';
import { readToolCall, type ToolCall } from '../mcp/tool-call.js';
import { shapeOf, type ToolParameters } from '../mcp/tool-shape.js';
import type { CallToolResult, ToolAnnotations } from '../mcp-sdk.js';
import { assertNoReservedParameters } from '../resource/resource-tool.js';
import { errorResult, textResult } from '../tool-result.js';
import type { ConsumerCallInfo } from './consumer-options.js';
import { consumerExtensionsFor } from './consumer-parameters.js';
import type { ConsumerRowResolver } from './consumer-rows.js';

/** Configuration of a consumer tool. */
export interface ConsumerToolConfig<TShape extends z.ZodRawShape> {
  /** Human-readable name for UIs. */
  readonly title?: string;
  /** What the tool does with the rows. S2SP appends how to pass them. */
  readonly description: string;
  /**
   * The tool's own parameters besides the four S2SP ones: a zod shape or object (as SDK v2 writes
   * them).
   */
  readonly inputSchema?: ToolParameters<TShape>;
  /** MCP tool annotations. */
  readonly annotations?: ToolAnnotations;
}

/**
 * What a consumer handler may return: a string (one text block), a full MCP `CallToolResult`
 * (any content, such as an image), or any other JSON value (sent as compact JSON text, and as
 * `structuredContent` when it is an object).
 */
export type ConsumerToolOutput =
  | string
  | CallToolResult
  | Record<string, unknown>
  | readonly unknown[]
  | number
  | boolean
  | null
  | undefined;

/**
 * A consumer tool's handler: receives the merged rows (PROTOCOL §4), its own arguments, and what
 * the `McpServer`'s SDK gives any tool handler (`ctx` on SDK v2, `extra` on v1).
 */
export type ConsumerToolHandler<TShape extends z.ZodRawShape, TCall = ToolCall> = (
  rows: RowWithId[],
  args: z.infer<z.ZodObject<TShape>>,
  call: TCall,
  info: ConsumerCallInfo,
) => ConsumerToolOutput | Promise<ConsumerToolOutput>;

function toCallToolResult(output: ConsumerToolOutput): CallToolResult {
  if (typeof output === 'string') return textResult(output);
  if (output === undefined) return { content: [] };
  if (isPlainObject(output) && Array.isArray(output.content)) return output as CallToolResult;
  const result = textResult(JSON.stringify(output));
  if (isPlainObject(output)) result.structuredContent = output;
  return result;
}

/** Builds the MCP callback of a consumer tool: resolve (merge, rename), then the handler. */
export function createConsumerToolCallback<TShape extends z.ZodRawShape, TCall extends ToolCall>(
  name: string,
  config: ConsumerToolConfig<TShape>,
  handler: ConsumerToolHandler<TShape, TCall>,
  options: {
    /** The server's one resolver: its fetch rules, its shared fetch limit. */
    readonly resolve: ConsumerRowResolver;
    readonly logger: Logger;
  },
): (args: Record<string, unknown>, call: TCall) => Promise<CallToolResult> {
  const shape = shapeOf(config.inputSchema);
  assertNoReservedParameters(name, shape, PROTOCOL.consumerToolParameters);
  const { logger, resolve } = options;
  const extensions = Object.keys(consumerExtensionsFor(shape));

  return async (args, call) => {
    const { abstract_data, resource_url, body_data, column_mapping, ...own } = args;
    const selection: Record<string, unknown> = {};
    for (const key of extensions) {
      selection[key] = own[key];
      delete own[key];
    }
    // MCP progress while the body arrives, when the client sent a progressToken.
    const onProgress = mcpProgress(call, 'fetching the body');
    const { signal } = readToolCall(call);
    try {
      const { rows, info } = await resolve(
        { abstract_data, resource_url, body_data, column_mapping, ...selection },
        { tool: name, ...(signal && { signal }), ...(onProgress && { onProgress }) },
      );
      return toCallToolResult(await handler(rows, own as z.infer<z.ZodObject<TShape>>, call, info));
    } catch (error) {
      logger.warn('consumer tool: failed', { tool: name, code: S2SPError.codeOf(error) });
      return errorResult(error);
    }
  };
}
