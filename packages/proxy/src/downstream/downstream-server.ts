/**
 * The MCP server the proxy shows its clients: a low-level SDK `Server` (so upstream JSON Schemas
 * pass through untouched) that declares what the upstream declares and forwards every request.
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import { s2spCapability, traceToolCall } from '@s2sp/server';
import type { z } from 'zod';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  type Implementation,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  type LoggingLevel,
  ReadResourceRequestSchema,
  Server,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '../mcp-sdk.js';
import { callTool, forwardOptions, type ToolCallContext } from '../tables/tool-call.js';

/** What a downstream server needs from the proxy. */
export interface DownstreamContext extends ToolCallContext {
  /** Resource subscriptions, shared by every downstream session (see subscriptions.ts). */
  readonly subscribe: (session: object, uri: string) => Promise<void>;
  readonly unsubscribe: (session: object, uri: string) => Promise<void>;
  /** Notes which client (`clientKey`) a session serves, so its own list changes reach it. */
  readonly seenClient: (server: Server, client: string) => void;
  /** A session's `logging/setLevel`, answered by the proxy (see notification-hub.ts). */
  readonly setLogLevel: (session: Server, level: LoggingLevel) => Promise<void>;
}

/**
 * The capabilities the proxy declares: the upstream's, minus what it cannot relay (experimental
 * tasks), tools with `listChanged`, since learned columns change tool descriptions, and S2SP.
 */
export function downstreamCapabilities(upstream: ServerCapabilities): ServerCapabilities {
  const { tasks: _tasks, ...rest } = upstream as ServerCapabilities & { tasks?: unknown };
  return {
    ...rest,
    ...(upstream.tools && { tools: { ...upstream.tools, listChanged: true } }),
    // The proxy's table tools are S2SP resource tools (PROTOCOL §7.7).
    experimental: {
      ...upstream.experimental,
      [PROTOCOL.capabilityKey]: s2spCapability(['resource']),
    },
  };
}

/** Longest tool name a span is named with (MCP's own limit for tool names is 128). */
const MAX_SPAN_TOOL_NAME = 128;

/**
 * Creates one downstream `Server` (one per HTTP session, or the stdio connection).
 *
 * @param context - upstream, table tools and subscriptions
 * @param info - server name and version to announce (the upstream's)
 */
export function createDownstreamServer(context: DownstreamContext, info: Implementation): Server {
  const caps = downstreamCapabilities(context.upstream.capabilities());
  const instructions = context.upstream.instructions();
  const server = new Server(info, { capabilities: caps, ...(instructions && { instructions }) });
  // What the upstream sends about this session's requests comes back to this session only.
  const own: ToolCallContext = { ...context, caller: server };

  const forward = <T extends z.ZodObject>(schema: T) =>
    server.setRequestHandler(schema, async (request, extra) =>
      context.upstream.request(request as never, forwardOptions(extra, server)),
    );

  if (caps.tools) {
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const result = (await context.upstream.request(request, {
        signal: extra.signal,
        caller: server,
      })) as ListToolsResult;
      // Each client sees its own listing: what its results taught the proxy, nobody else's.
      const client = context.clientKey(extra);
      context.seenClient(server, client);
      return { ...result, tools: context.tables.decorate(result.tools ?? [], client) };
    });
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      context.seenClient(server, context.clientKey(extra));
      // The proxy's own `tools/call` span, a child of the caller's `_meta.traceparent`; the call
      // upstream carries this span's context on. The name is the caller's: capped for the span.
      const traced = traceToolCall(
        request.params.name.slice(0, MAX_SPAN_TOOL_NAME),
        (params: typeof request.params, callExtra: typeof extra) =>
          callTool(own, params, callExtra),
        'resource',
      );
      return traced(request.params, extra);
    });
  }
  if (caps.resources) {
    forward(ListResourcesRequestSchema);
    forward(ListResourceTemplatesRequestSchema);
    forward(ReadResourceRequestSchema);
    if (caps.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (request) => {
        await context.subscribe(server, request.params.uri);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        await context.unsubscribe(server, request.params.uri);
        return {};
      });
    }
  }
  if (caps.prompts) {
    forward(ListPromptsRequestSchema);
    forward(GetPromptRequestSchema);
  }
  if (caps.completions) forward(CompleteRequestSchema);
  if (caps.logging) {
    // Answered here, per session: forwarding it would let one session set everyone's level.
    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      await context.setLogLevel(server, request.params.level);
      return {};
    });
  }
  return server;
}
