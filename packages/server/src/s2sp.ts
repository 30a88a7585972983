import { type BodyStore, S2SP_CAPABILITY_KEY, S2SPError, s2spCapability } from '@s2sp/core';
import { positiveOption } from '@s2sp/core/internal';
import type { Hono } from 'hono';
import type { z } from 'zod';
import { type AdvertisedUrl, createAdvertisedUrl } from './advertised-url.js';
import { createClientQuota } from './client-quota.js';
import { createConcurrencyLimit } from './concurrency-limit.js';
import {
  consumerExtensionsFor,
  consumerParameters,
  consumerToolDescription,
} from './consumer-parameters.js';
import {
  type ConsumerToolConfig,
  type ConsumerToolHandler,
  createConsumerToolCallback,
  DEFAULT_MAX_CONCURRENT_FETCHES,
  DEFAULT_MAX_QUEUED_FETCHES,
} from './consumer-tool.js';
import { s2spInstructions } from './guidance.js';
import { createDataPlaneApp } from './http/data-plane.js';
import type { CallToolResult, McpServer, RegisteredTool, ToolAnnotations } from './mcp-sdk.js';
import { nullAsAbsent } from './null-as-absent.js';
import { type ResolvedOptions, resolveOptions, type S2SPOptions } from './options.js';
import {
  createResourceToolCallback,
  extensionParametersFor,
  type ResourceToolConfig,
  type ResourceToolHandler,
  resourceParameters,
  resourceToolDescription,
  shortResourceParameters,
} from './resource-tool.js';
import type { TableResultArguments } from './table-request.js';
import { answerTableCall, type TableResultContext } from './table-result.js';

/**
 * The S2SP runtime: what S2SP needs (a store, a TTL, the advertised address, the data plane),
 * and nothing of the MCP server, HTTP app or transport, which stay yours. Created by
 * {@link createS2SP}.
 */
export interface S2SP {
  /** The body store async-mode tables are cached in. */
  readonly store: BodyStore;
  /**
   * The data plane (PROTOCOL §3) as a Hono app with its own error handling: `POST
   * /s2sp/data/:token` and `GET /s2sp/health`. Mount it in your app (`app.route('/',
   * s2sp.dataPlane)`), serve its `fetch` with any adapter, or wrap it for Express and `node:http`
   * with `toNodeHandler` from `@s2sp/server/node`. Mounted under a prefix, set `publicUrl` to
   * match.
   */
  readonly dataPlane: Hono;
  /**
   * Registers a resource tool (PROTOCOL §2) on your `McpServer`: the handler returns rows; S2SP
   * adds `abstract_domains` and `mode` to its parameters and does projection, `_row_id`, caching
   * and the response. Register on as many servers as you like (one per session, per request, or
   * for stdio): they share this runtime's store.
   *
   * @returns the SDK's handle, to `disable()`, `enable()`, `update()` or `remove()` the tool
   * @throws S2SPError `invalid_config` for a bad or already registered name, or a tool parameter
   *   named like an S2SP one
   */
  registerResourceTool<TShape extends z.ZodRawShape = Record<never, never>>(
    mcp: McpServer,
    name: string,
    config: ResourceToolConfig<TShape>,
    handler: ResourceToolHandler<TShape>,
  ): RegisteredTool;
  /**
   * Registers a consumer tool (PROTOCOL §4) on your `McpServer`: S2SP adds `abstract_data`,
   * `resource_url`, `body_data` and `column_mapping`, fetches and merges, and hands the handler
   * the full rows.
   *
   * @returns the SDK's handle of the tool
   * @throws S2SPError `invalid_config` as {@link S2SP.registerResourceTool}
   */
  registerConsumerTool<TShape extends z.ZodRawShape = Record<never, never>>(
    mcp: McpServer,
    name: string,
    config: ConsumerToolConfig<TShape>,
    handler: ConsumerToolHandler<TShape>,
  ): RegisteredTool;
  /**
   * The resource-tool response for rows you already have — for a low-level `Server`, a proxy, or
   * any tool callback of your own: the plain JSON array without `abstract_domains`, else the
   * PROTOCOL §2 split. Never throws: a failure is a tool error result carrying a stable code in
   * `_meta['s2sp/error-code']`.
   *
   * @param rows - the table, an array of plain JSON objects
   * @param args - the call's `abstract_domains` and `mode`, as sent
   * @param context - the tool's name, the MCP request (`extra.requestInfo`), declared columns
   */
  resourceResult(
    rows: unknown,
    args: TableResultArguments,
    context?: TableResultContext,
  ): Promise<CallToolResult>;
  /**
   * The base URL `resource_url`s name when no MCP request says otherwise: `publicUrl`, else the
   * address of a convenience listener, else `undefined`.
   */
  advertisedUrl(): string | undefined;
  /**
   * The S2SP how-to for the model, to say once in your `McpServer`'s `instructions` when
   * `toolGuidance` is `"instructions"` (`createS2SPServer` adds it to its own). Since 0.3.0.
   */
  readonly instructions: string;
  /** Closes the store when this runtime created it (the default in-memory store). */
  close(): Promise<void>;
}

/** What the convenience layer needs beyond the public runtime. */
export interface S2SPInternals {
  readonly s2sp: S2SP;
  readonly options: ResolvedOptions;
  readonly advertisedUrl: AdvertisedUrl;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

type Role = 'resource' | 'consumer';
const declaredRoles = new WeakMap<McpServer, Set<Role>>();

/**
 * Declares S2SP in the server's MCP capabilities (`experimental.s2sp`, PROTOCOL §7.7), so that
 * clients can tell an S2SP server from a plain one at initialisation. The SDK accepts new
 * capabilities only before `connect()`; a tool registered later still works, undeclared.
 */
function declareS2SP(mcp: McpServer, role: Role): void {
  const roles = declaredRoles.get(mcp) ?? new Set<Role>();
  roles.add(role);
  declaredRoles.set(mcp, roles);
  if (mcp.isConnected()) return;
  mcp.server.registerCapabilities({
    experimental: { [S2SP_CAPABILITY_KEY]: s2spCapability([...roles]) },
  });
}

function register(
  mcp: McpServer,
  name: string,
  config: {
    description: string;
    inputSchema: z.ZodRawShape;
    title?: string | undefined;
    annotations?: ToolAnnotations | undefined;
  },
  callback: unknown,
  role: Role,
): RegisteredTool {
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new S2SPError(
      'invalid_config',
      `Tool name ${JSON.stringify(name)} is not valid: use 1-128 letters, digits, "_", "-" or ".".`,
    );
  }
  let tool: RegisteredTool;
  try {
    tool = mcp.registerTool(
      name,
      {
        description: config.description,
        inputSchema: config.inputSchema,
        ...(config.title && { title: config.title }),
        ...(config.annotations && { annotations: config.annotations }),
      },
      callback as Parameters<McpServer['registerTool']>[2],
    );
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

/** Builds the runtime and the parts the convenience layer shares with it. */
export function createS2SPInternals(options: S2SPOptions, loggerName?: string): S2SPInternals {
  const resolved = resolveOptions(options, loggerName);
  const { store, ttlMs, maxSyncBytes, logger, tokenBudget, abstractEncoding, toolGuidance } =
    resolved;
  const advertisedUrl = createAdvertisedUrl(resolved);
  const quota = createClientQuota(
    options.maxEntriesPerClient === undefined ? {} : { maxEntries: options.maxEntriesPerClient },
  );
  const runtime = {
    store,
    ttlMs,
    maxSyncBytes,
    logger,
    advertisedUrl,
    quota,
    tokenBudget,
    abstractEncoding,
  };
  // One limit for every consumer tool of this server, across the per-request McpServers.
  const fetchLimit = createConcurrencyLimit({
    concurrency: resolved.consumer.maxConcurrentFetches ?? DEFAULT_MAX_CONCURRENT_FETCHES,
    queue: resolved.consumer.maxQueuedFetches ?? DEFAULT_MAX_QUEUED_FETCHES,
    what: 'data-plane fetches',
  });
  const short = toolGuidance === 'instructions';
  // Which tool first listed a row schema, per McpServer: with the how-to in the instructions, a
  // second tool with the same rows names the first instead of listing every column again.
  const listedSchemas = new WeakMap<McpServer, Map<z.ZodObject, string>>();
  const dataPlane = createDataPlaneApp({
    store,
    logger,
    bodyTimeoutMs: resolved.requestBodyTimeoutMs,
    ...(resolved.maxDataRequestBytes !== undefined && {
      maxRequestBytes: resolved.maxDataRequestBytes,
    }),
    ...(options.maxDataRowIds !== undefined && { maxRowIds: options.maxDataRowIds }),
    onTaken: (key) => quota.release(key),
  });

  const s2sp: S2SP = {
    store,
    dataPlane,

    registerResourceTool(mcp, name, config, handler) {
      if (config.tokenBudget !== undefined)
        positiveOption(`${name}: tokenBudget`, config.tokenBudget, tokenBudget, { integer: true });
      const own = config.inputSchema ?? {};
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
          inputSchema: {
            ...nullAsAbsent(own),
            ...(short ? shortResourceParameters : resourceParameters),
            ...extensionParametersFor(own, short),
          },
          title: config.title,
          annotations: config.annotations,
        },
        createResourceToolCallback(name, config, handler, runtime),
        'resource',
      );
      if (config.rowSchema && !listed.has(config.rowSchema)) listed.set(config.rowSchema, name);
      return registered;
    },

    registerConsumerTool(mcp, name, config, handler) {
      return register(
        mcp,
        name,
        {
          description: consumerToolDescription(config.description, toolGuidance),
          inputSchema: {
            ...nullAsAbsent(config.inputSchema ?? {}),
            ...consumerParameters,
            ...consumerExtensionsFor(config.inputSchema ?? {}),
          },
          title: config.title,
          annotations: config.annotations,
        },
        createConsumerToolCallback(name, config, handler, {
          fetch: resolved.consumer,
          fetchLimit,
          logger,
        }),
        'consumer',
      );
    },

    resourceResult: (rows, args, context = {}) =>
      answerTableCall(args, () => rows, runtime, context),

    advertisedUrl: () => advertisedUrl.current(),

    instructions: s2spInstructions(ttlMs, abstractEncoding),

    async close() {
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
