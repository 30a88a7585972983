/**
 * The span of one S2SP tool call, continuing the caller's trace from `_meta.traceparent` (W3C
 * Trace Context in MCP request metadata, as MCP hosts and SDKs carry it).
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { readToolCall, type ToolCall } from '../mcp/tool-call.js';
import type { CallToolResult } from '../mcp-sdk.js';
import { recordReceipt } from './metrics.js';
import { otelIfLoaded } from './otel.js';
import { extractContext, inSpan, markFailed } from './spans.js';

function textBytes(result: CallToolResult): number {
  let bytes = 0;
  for (const block of result.content ?? [])
    if (block.type === 'text') bytes += new TextEncoder().encode(block.text).byteLength;
  return bytes;
}

function describeResult(result: CallToolResult): Record<string, string | number> {
  const data = result.structuredContent as
    | { total_rows?: unknown; abstract_domains?: unknown; body_domains?: unknown; body?: unknown }
    | undefined;
  const attributes: Record<string, string | number> = { 's2sp.bytes': textBytes(result) };
  if (data && typeof data.total_rows === 'number' && Array.isArray(data.abstract_domains)) {
    attributes['s2sp.mode'] = data.body === undefined ? 'async' : 'sync';
    attributes['s2sp.rows'] = data.total_rows;
    attributes['s2sp.columns'] =
      data.abstract_domains.length +
      (Array.isArray(data.body_domains) ? data.body_domains.length : 0);
  }
  const receipt = readS2SPReceipt(result);
  if (receipt) {
    attributes['s2sp.rows_withheld'] = receipt.rows_withheld;
    attributes['s2sp.columns_withheld'] = receipt.columns_withheld;
    attributes['s2sp.tokens_saved'] = receipt.tokens_saved;
  }
  return attributes;
}

/**
 * Wraps a tool's MCP callback in a `tools/call {name}` server span (the MCP semantic
 * conventions' name) whose parent is the context in the request's `_meta.traceparent`, records
 * the result's rows, columns, bytes and mode on it, and counts its savings receipt in the
 * `s2sp.model.*` metrics. Without OpenTelemetry the callback runs as it is. S2SP's own resource
 * and consumer tools are wrapped already; use it for tools you register yourself.
 *
 * @param name - the tool's name, as registered
 * @param callback - the tool's callback, as you would pass it to `registerTool`
 * @param role - attribute `s2sp.role`: `resource`, `consumer`, or `tool` (default) for others
 *
 * @example
 * ```ts
 * mcp.registerTool('query', { inputSchema: z.object({ sql: z.string() }) }, traceToolCall('query', async ({ sql }) => run(sql)));
 * ```
 */
export function traceToolCall<TArgs, TCall extends ToolCall>(
  name: string,
  callback: (args: TArgs, call: TCall) => CallToolResult | Promise<CallToolResult>,
  role: 'resource' | 'consumer' | 'tool' = 'tool',
): (args: TArgs, call: TCall) => Promise<CallToolResult> {
  return (args, call) =>
    inSpan(
      `tools/call ${name}`,
      {
        kind: 'SERVER',
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': name,
          's2sp.role': role,
        },
        parent: (api, active) =>
          extractContext(
            api,
            active,
            readToolCall(call).meta as Record<string, unknown> | undefined,
          ),
      },
      async (span) => {
        const result = await callback(args, call);
        const api = otelIfLoaded();
        if (!api) return result;
        const receipt = readS2SPReceipt(result);
        if (receipt) recordReceipt(receipt, name);
        if (span) {
          span.setAttributes(describeResult(result));
          const code = result._meta?.[PROTOCOL.errorCodeMeta];
          if (result.isError) markFailed(api, span, String(code ?? 'tool_error'));
        }
        return result;
      },
    );
}
