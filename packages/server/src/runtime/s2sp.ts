import { PROTOCOL, S2SPError } from '@s2sp/core';
import { z } from 'zod';
import {
  consumerExtensionsFor,
  consumerParameters,
  consumerToolDescription,
} from '../consumer/consumer-parameters.js';
import { createConsumerRowResolver } from '../consumer/consumer-rows.js';
import { createConsumerToolCallback } from '../consumer/consumer-tool.js';
import { type AdvertisedUrl, createAdvertisedUrl } from '../data-plane/advertised-url.js';
import { createDataPlaneApp } from '../data-plane/data-plane.js';
import { s2spInstructions } from '../guidance.js';
import { createClientQuota } from '../limits/client-quota.js';
import { createConcurrencyLimit } from '../limits/concurrency-limit.js';
import { s2spCapability } from '../mcp/capability.js';
import type { McpServerLike, RegisteredToolOf } from '../mcp/mcp-server-like.js';
import type { ToolCall } from '../mcp/tool-call.js';
import { shapeOf } from '../mcp/tool-shape.js';
import type { CallToolResult, ToolAnnotations } from '../mcp-sdk.js';
import { nullAsAbsent } from '../null-as-absent.js';
import {
  createResourceToolCallback,
  extensionParametersFor,
  resourceParameters,
  resourceToolDescription,
  shortResourceParameters,
} from '../resource/resource-tool.js';
import { answerTableCall, type TableResultRuntime } from '../resource/table-result.js';
import { observeStore } from '../telemetry/metrics.js';
import { loadOtel } from '../telemetry/otel.js';
import { traceToolCall } from '../telemetry/tool-span.js';
import { traceStore } from '../telemetry/traced-store.js';
import {
  checkToolOptions,
  type ResolvedOptions,
  resolveOptions,
  type S2SPOptions,
} from './options.js';
import type { S2SP } from './s2sp-types.js';

/** What the convenience layer needs beyond the public runtime. */
export interface S2SPInternals {
  readonly s2sp: S2SP;
  readonly options: ResolvedOptions;
  readonly advertisedUrl: AdvertisedUrl;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

type Role = 'resource' | 'consumer';
const declaredRoles = new WeakMap<McpServerLike, Set<Role>>();

/**
 * Declares S2SP in the server's MCP capabilities (PROTOCOL §7.7), both ways: as the 2026-07-28
 * extension (`extensions["io.github.s2sp/s2sp"]`) and as `experimental.s2sp` for 2025 clients, so
 * that clients of either era can tell an S2SP server from a plain one. Both SDKs accept new
 * capabilities only before `connect()`; a tool registered later still works, undeclared.
 */
function declareS2SP(mcp: McpServerLike, role: Role): void {
  const roles = declaredRoles.get(mcp) ?? new Set<Role>();
  roles.add(role);
  declaredRoles.set(mcp, roles);
  if (mcp.isConnected()) return;
  const capability = s2spCapability([...roles]);
  mcp.server.registerCapabilities({
    experimental: { [PROTOCOL.capabilityKey]: capability },
    extensions: { [PROTOCOL.extensionId]: capability },
  } as never);
}

function register<M extends McpServerLike>(
  mcp: M,
  name: string,
  config: {
    description: string;
    inputSchema: z.ZodObject;
    title?: string | undefined;
    annotations?: ToolAnnotations | undefined;
    _meta?: Record<string, unknown> | undefined;
  },
  callback: (args: Record<string, unknown>, call: ToolCall) => Promise<CallToolResult>,
  role: Role,
): RegisteredToolOf<M> {
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new S2SPError(
      'invalid_config',
      `Tool name ${JSON.stringify(name)} is not valid: use 1-128 letters, digits, "_", "-" or ".".`,
    );
  }
  let tool: RegisteredToolOf<M>;
  try {
    // An object schema, not a raw shape: SDK v2 deprecates raw shapes, and v1 takes both.
    tool = mcp.registerTool(
      name,
      {
        description: config.description,
        inputSchema: config.inputSchema,
        ...(config.title && { title: config.title }),
        ...(config.annotations && { annotations: config.annotations }),
        ...(config._meta && { _meta: config._meta }),
      },
      traceToolCall(name, callback, role),
    ) as RegisteredToolOf<M>;
  } catch (cause) {
    // The SDK refuses a second tool of the same name on one server with a plain Error.
    throw new S2SPError(
      'invalid_config',
      `Cannot register tool "${name}" on this McpServer: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  declareS2SP(mcp, role);
  return tool;
}

/**
 * The input schema of a tool's configuration, made once per runtime and role: a stateless server
 * registers every tool on a new McpServer for each request, and zod compiles a schema for its
 * first parse, so a schema made at each registration was compiled again on every call (about
 * 0.1 ms). Keyed by the tool's own parameters, read when they are first registered; every tool
 * without any shares one.
 */
function inputSchemaCache(): (
  config: { readonly inputSchema?: object | undefined },
  shape: () => z.ZodRawShape,
) => z.ZodObject {
  const schemas = new WeakMap<object, z.ZodObject>();
  const none = {};
  return (config, shape) => {
    const key = config.inputSchema ?? none;
    let schema = schemas.get(key);
    if (!schema) {
      schema = z.object(shape());
      schemas.set(key, schema);
    }
    return schema;
  };
}

/** Builds the runtime and the parts the convenience layer shares with it. */
export function createS2SPInternals(
  options: S2SPOptions,
  loggerName?: string,
  factory?: string,
): S2SPInternals {
  const resolved = resolveOptions(options, loggerName, factory);
  // OpenTelemetry, when the application has it: spans around the store's put and take.
  void loadOtel();
  const store = traceStore(resolved.store);
  const stopObserving = observeStore(store);
  const { ttlMs, logger, abstractEncoding, toolGuidance } = resolved;
  const advertisedUrl = createAdvertisedUrl(resolved);
  const quota = createClientQuota({
    maxEntries: resolved.maxEntriesPerClient,
    maxBytes: resolved.maxBytesPerClient,
  });
  // What building a result needs: the resolved options as they are, with the traced store.
  const runtime: TableResultRuntime = { ...resolved, store, advertisedUrl, quota };
  // One limit for every consumer tool of this server, across the per-request McpServers.
  const fetchLimit = createConcurrencyLimit({
    // Defaults applied by ConsumerFetchOptionsSchema.
    concurrency: resolved.consumer.maxConcurrentFetches as number,
    queue: resolved.consumer.maxQueuedFetches as number,
    what: 'data-plane fetches',
  });
  // One resolver for every consumer tool and resolveConsumerRows: the same rules, the same limit.
  const resolveRows = createConsumerRowResolver({ fetch: resolved.consumer, fetchLimit, logger });
  const short = toolGuidance === 'instructions';
  // A host that defers tools behind a search loads these at once (PROTOCOL.alwaysLoadMeta).
  const alwaysLoadMeta = resolved.alwaysLoadConsumerTools
    ? { [PROTOCOL.alwaysLoadMeta]: true }
    : undefined;
  // Which tool first listed a row schema, per McpServer: with the how-to in the instructions, a
  // second tool with the same rows names the first instead of listing every column again.
  const listedSchemas = new WeakMap<McpServerLike, Map<z.ZodObject, string>>();
  const resourceInput = inputSchemaCache();
  const consumerInput = inputSchemaCache();
  const dataPlane = createDataPlaneApp({
    store,
    logger,
    bodyTimeoutMs: resolved.requestBodyTimeoutMs,
    maxRequestBytes: resolved.maxDataRequestBytes,
    maxRowIds: resolved.maxDataRowIds,
    retryGraceMs: resolved.retryGraceMs,
    // A retry-safe redemption keeps the entry for its grace window: the client's quota too.
    onTaken: (key, graceMs) =>
      graceMs === undefined ? quota.release(key) : quota.hold(key, graceMs),
  });

  const s2sp: S2SP = {
    // The application's own store object, not the traced view of it.
    store: resolved.store,
    dataPlane,

    registerResourceTool(mcp, name, config, handler) {
      checkToolOptions(name, config);
      const own = shapeOf(config.inputSchema);
      const listed = listedSchemas.get(mcp) ?? new Map<z.ZodObject, string>();
      listedSchemas.set(mcp, listed);
      const listedBy = short && config.rowSchema ? listed.get(config.rowSchema) : undefined;
      const registered = register(
        mcp,
        name,
        {
          description: resourceToolDescription(
            config.description,
            ttlMs,
            config.rowSchema,
            toolGuidance,
            listedBy,
          ),
          inputSchema: resourceInput(config, () => ({
            ...nullAsAbsent(own),
            ...(short ? shortResourceParameters : resourceParameters),
            ...extensionParametersFor(own, short),
          })),
          title: config.title,
          annotations: config.annotations,
        },
        // The handler is typed by the McpServer's SDK (ToolContextOf<M>) and gets that SDK's own
        // argument, which S2SP itself reads only as a ToolCall.
        createResourceToolCallback(name, config, handler as never, runtime),
        'resource',
      );
      if (config.rowSchema && !listed.has(config.rowSchema)) listed.set(config.rowSchema, name);
      return registered;
    },

    registerConsumerTool(mcp, name, config, handler) {
      const own = shapeOf(config.inputSchema);
      return register(
        mcp,
        name,
        {
          description: consumerToolDescription(config.description, toolGuidance),
          inputSchema: consumerInput(config, () => ({
            ...nullAsAbsent(own),
            ...consumerParameters,
            ...consumerExtensionsFor(own),
          })),
          title: config.title,
          annotations: config.annotations,
          _meta: alwaysLoadMeta,
        },
        createConsumerToolCallback(name, config, handler as never, {
          resolve: resolveRows,
          logger,
        }),
        'consumer',
      );
    },

    resolveConsumerRows: (args, options = {}) =>
      resolveRows(args, {
        ...(options.signal && { signal: options.signal }),
        ...(options.wholeTable !== undefined && { wholeTable: options.wholeTable }),
      }),

    resourceResult: (rows, args, context = {}) =>
      answerTableCall(args, () => rows, runtime, context),

    advertisedUrl: () => advertisedUrl.current(),

    instructions: s2spInstructions(ttlMs, abstractEncoding),

    async close() {
      stopObserving();
      if (resolved.ownsStore) await store.close();
    },
  };
  return { s2sp, options: resolved, advertisedUrl };
}

/**
 * Creates the S2SP runtime that adds S2SP to MCP servers you already have: register resource and
 * consumer tools on your own `McpServer` (stateful or stateless Streamable HTTP, stdio, any
 * framework), and mount {@link S2SP.dataPlane} in your own HTTP app.
 *
 * @param options - store, TTL, advertised address, limits; all optional
 * @throws S2SPError `invalid_config` for options that cannot work
 *
 * @example
 * ```ts
 * const s2sp = createS2SP({ publicUrl: 'https://weather.example.com' });
 * const mcp = new McpServer({ name: 'weather', version: '1.0.0' });
 * s2sp.registerResourceTool(mcp, 'get_alerts', { description: 'Active alerts' }, async () => rows);
 * app.route('/', s2sp.dataPlane);
 * ```
 */
export function createS2SP(options: S2SPOptions = {}): S2SP {
  return createS2SPInternals(options).s2sp;
}
