/**
 * The MCP server the proxy shows its clients: a low-level SDK `Server` (so upstream JSON Schemas
 * pass through untouched) that declares what the upstream declares and forwards every request.
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import {
  CallToolRequestSchema,
  type ClientCapabilities,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  type Implementation,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  type LoggingLevel,
  ModernServer,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  Server,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '../mcp-sdk.js';
import { proxyInstructions } from '../tables/proxy-instructions.js';
import type { GatewayParts, ToolCall } from '../tables/s2sp-call.js';
import { callTool, forwardOptions, type ToolCallContext } from '../tables/tool-call.js';
import { relayScope } from '../upstream/client-relay.js';
import type { InputRounds, ModernCall } from './input-rounds.js';
import { legacyRelayTarget } from './relay-target.js';

/** What a downstream server needs from the proxy. */
export interface DownstreamContext extends ToolCallContext {
  /** Resource subscriptions, shared by every downstream session (see subscriptions.ts). */
  readonly subscribe: (session: object, uri: string) => Promise<void>;
  readonly unsubscribe: (session: object, uri: string) => Promise<void>;
  /** Notes which client (`clientKey`) a session serves, so its own list changes reach it. */
  readonly seenClient: (server: object, client: string) => void;
  /** A session's `logging/setLevel`, answered by the proxy (see notification-hub.ts). */
  readonly setLogLevel: (session: Server, level: LoggingLevel) => Promise<void>;
  /** The relay for 2026-07-28 requests: their calls kept across `input_required` rounds. */
  readonly rounds: InputRounds;
}

/** The 2026-07-28 methods whose result may be `input_required` (the upstream's requests). */
const MAY_NEED_INPUT: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

/**
 * The capabilities the proxy declares: the upstream's, minus what it cannot relay (experimental
 * tasks), tools with `listChanged`, since learned columns change tool descriptions, and S2SP.
 */
export function downstreamCapabilities(
  upstream: ServerCapabilities,
  s2spCapability: GatewayParts['s2spCapability'],
): ServerCapabilities {
  const { tasks: _tasks, ...rest } = upstream as ServerCapabilities & { tasks?: unknown };
  return {
    ...rest,
    ...(upstream.tools && { tools: { ...upstream.tools, listChanged: true } }),
    // The proxy's table tools are S2SP resource tools (PROTOCOL §7.7), declared for both eras.
    experimental: {
      ...upstream.experimental,
      [PROTOCOL.capabilityKey]: s2spCapability(['resource']),
    },
    extensions: {
      ...(upstream as { extensions?: Record<string, object> }).extensions,
      [PROTOCOL.extensionId]: s2spCapability(['resource']),
    },
  };
}

/** Longest tool name a span is named with (MCP's own limit for tool names is 128). */
const MAX_SPAN_TOOL_NAME = 128;

/** A request handler of the downstream server, the same on either SDK's `Server`. */
type Handler = (request: { method: string; params?: unknown }, call: ToolCall) => Promise<object>;

/** The SDK v1 request schema of each method a downstream session answers. */
const LEGACY_SCHEMAS = {
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'resources/subscribe': SubscribeRequestSchema,
  'resources/unsubscribe': UnsubscribeRequestSchema,
  'prompts/list': ListPromptsRequestSchema,
  'prompts/get': GetPromptRequestSchema,
  'completion/complete': CompleteRequestSchema,
  'logging/setLevel': SetLevelRequestSchema,
} as const;

type Method = keyof typeof LEGACY_SCHEMAS;

/**
 * What the downstream server answers, per method, for one serving unit (`server`: a 2025
 * session, or one 2026-07-28 request). Session-scoped methods (resource subscriptions, the log
 * level) exist only where there is a session.
 */
function downstreamHandlers(
  context: DownstreamContext,
  caps: ServerCapabilities,
  server: object,
  sessions: boolean,
): [Method, Handler][] {
  // What the upstream sends about this unit's requests comes back to it only.
  const own: ToolCallContext = { ...context, caller: server };
  const handlers: [Method, Handler][] = [];
  // Every request that reaches the upstream counts against its client's limit, not only tool
  // calls: one client's slow prompts or reads cannot take what the others need.
  const limited = <T>(call: ToolCall, run: () => Promise<T>) =>
    context.callsPerClient.run(context.clientKey(call), run);
  const forward = (method: Method) =>
    handlers.push([
      method,
      (request, call) =>
        limited(call, () =>
          context.upstream.request(
            request as never,
            forwardOptions(call, server, context.parts.readToolCall),
          ),
        ),
    ]);

  if (caps.tools) {
    handlers.push([
      'tools/list',
      async (request, call) => {
        const result = (await limited(call, () =>
          context.upstream.request(request as never, {
            ...withSignal(call, context.parts.readToolCall),
            caller: server,
          }),
        )) as ListToolsResult;
        // Each client sees its own listing: what its results taught the proxy, nobody else's.
        const client = context.clientKey(call);
        context.seenClient(server, client);
        return { ...result, tools: context.tables.decorate(result.tools ?? [], client) };
      },
    ]);
    handlers.push([
      'tools/call',
      (request, call) => {
        const params = request.params as Parameters<typeof callTool>[1];
        context.seenClient(server, context.clientKey(call));
        // The proxy's own `tools/call` span, a child of the caller's `_meta.traceparent`; the call
        // upstream carries this span's context on. The name is the caller's: capped for the span.
        const traced = context.parts.traceToolCall(
          params.name.slice(0, MAX_SPAN_TOOL_NAME),
          (toolParams: typeof params, toolCall: ToolCall) => callTool(own, toolParams, toolCall),
          'resource',
        );
        return traced(params, call);
      },
    ]);
  }
  if (caps.resources) {
    forward('resources/list');
    forward('resources/templates/list');
    forward('resources/read');
    if (caps.resources.subscribe && sessions) {
      handlers.push([
        'resources/subscribe',
        async (request) => {
          await context.subscribe(server, (request.params as { uri: string }).uri);
          return {};
        },
      ]);
      handlers.push([
        'resources/unsubscribe',
        async (request) => {
          await context.unsubscribe(server, (request.params as { uri: string }).uri);
          return {};
        },
      ]);
    }
  }
  if (caps.prompts) {
    forward('prompts/list');
    forward('prompts/get');
  }
  if (caps.completions) forward('completion/complete');
  if (caps.logging && sessions) {
    // Answered here, per session: forwarding it would let one session set everyone's level.
    handlers.push([
      'logging/setLevel',
      async (request) => {
        await context.setLogLevel(
          server as Server,
          (request.params as { level: LoggingLevel }).level,
        );
        return {};
      },
    ]);
  }
  return handlers;
}

function withSignal(
  call: ToolCall,
  readToolCall: GatewayParts['readToolCall'],
): { signal?: AbortSignal } {
  const { signal } = readToolCall(call);
  return signal ? { signal } : {};
}

/**
 * Creates one downstream `Server` for a 2025-era session (one per HTTP session, or the stdio
 * connection).
 *
 * @param context - upstream, table tools and subscriptions
 * @param info - server name and version to announce (the upstream's)
 */
export function createDownstreamServer(context: DownstreamContext, info: Implementation): Server {
  const caps = downstreamCapabilities(
    context.upstream.capabilities(),
    context.parts.s2spCapability,
  );
  const instructions = proxyInstructions(context.upstream.instructions(), context.s2sp);
  const server = new Server(info, { capabilities: caps, ...(instructions && { instructions }) });
  for (const [method, handler] of downstreamHandlers(context, caps, server, true)) {
    // What the upstream asks a client while answering this request reaches this client only,
    // as part of this request (see upstream/client-relay.ts).
    const relayed: Handler = (request, call) =>
      relayScope.run(legacyRelayTarget(server, call, context.clientKey(call)) as never, () =>
        handler(request, call),
      );
    server.setRequestHandler(LEGACY_SCHEMAS[method], relayed as never);
  }
  // The proxy declares roots with listChanged upstream: a client's change is the upstream's news.
  server.setNotificationHandler(RootsListChangedNotificationSchema, () =>
    context.upstream.notify({ method: 'notifications/roots/list_changed' }),
  );
  return server;
}

/**
 * Creates the downstream server for one 2026-07-28 request (SDK v2's per-request entry makes one
 * per request): the same answers as a session's, without what only a session has.
 *
 * @param context - upstream, table tools
 * @param info - server name and version to announce (the upstream's)
 */
export function createModernDownstreamServer(
  context: DownstreamContext,
  info: Implementation,
): ModernServer {
  const caps = downstreamCapabilities(
    context.upstream.capabilities(),
    context.parts.s2spCapability,
  );
  const instructions = proxyInstructions(context.upstream.instructions(), context.s2sp);
  const { logging: _perRequest, ...modernCaps } = caps;
  const server = new ModernServer(info, {
    capabilities: modernCaps as never,
    ...(instructions && { instructions }),
  });
  for (const [method, handler] of downstreamHandlers(context, modernCaps, server, false)) {
    // What a 2025-era upstream asks the client while answering goes back as `input_required`
    // rounds the proxy keeps (see input-rounds.ts); a 2026-07-28 upstream's own rounds go back
    // to the client as they came, and its retries upstream (see upstream/client-round.ts).
    const relayed: Handler =
      MAY_NEED_INPUT.has(method) && context.upstream.era() !== 'modern'
        ? (request, call) =>
            context.rounds.run(
              call as ModernCall,
              context.clientKey(call),
              server.getClientCapabilities() as ClientCapabilities | undefined,
              (own) => handler(request, own as ToolCall),
            )
        : handler;
    server.setRequestHandler(method, relayed as never);
  }
  return server;
}
