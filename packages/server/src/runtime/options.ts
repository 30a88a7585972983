import { type Logger, PROTOCOL } from '@s2sp/core';
import {
  byteSize,
  httpUrl,
  parseOptions,
  positiveInteger,
  positiveNumber,
  stringList,
} from '@s2sp/core/options';
import { type BodyStore, createMemoryStore, MemoryStoreOptionsSchema } from '@s2sp/core/store';
import { z } from 'zod';
import {
  type ConsumerFetchOptions,
  ConsumerFetchOptionsSchema,
} from '../consumer/consumer-options.js';
import { DataPlaneOptionsSchema } from '../data-plane/data-plane-options.js';
import { EdgeOptionsSchema, HostValueSchema, LoggerSchema } from '../edge/edge-options.js';
import { MaxBytesPerClientSchema, MaxEntriesPerClientSchema } from '../limits/client-quota.js';
import { createConsoleLogger } from '../logger.js';
import type { AbstractEncoding } from '../resource/table-pages.js';
import { DEFAULT_TOKEN_BUDGET } from '../resource/token-estimate.js';

/** Options for {@link createS2SP}. Every one is optional. */
export interface S2SPOptions {
  /**
   * Where async-mode tables are cached. Default: an in-memory store (one process). Pass a shared
   * store, such as `@s2sp/cache-redis`, to run several replicas.
   */
  readonly store?: BodyStore;
  /** Byte budget of the default in-memory store. Default 256 MiB. Ignored with `store`. */
  readonly maxCacheBytes?: number;
  /** Lifetime of a `resource_url`, in seconds, at most a day (86 400). Default 600. */
  readonly ttlSeconds?: number;
  /**
   * The base URL advertised in `resource_url`s: where consumers reach the mounted
   * {@link S2SP.dataPlane} (`https://data.example.com`; a path prefix is kept, so a data plane
   * mounted under `/api` is `https://data.example.com/api`). Set it in production, for stdio
   * servers, and whenever consumers reach this server through another address than the one the
   * MCP request came to. Without it, the MCP request's own origin is used only when its host is
   * loopback (`localhost`, `127.0.0.1`, `[::1]`) or in `trustedHosts` — never an arbitrary
   * `Host` header — with the data plane assumed at the origin's root.
   */
  readonly publicUrl?: string;
  /** Extra `Host` values (`host` or `host:port`) whose requests may set the advertised base. */
  readonly trustedHosts?: readonly string[];
  /**
   * Largest sync-mode result, in bytes. The body travels on through the agent as `body_data`,
   * and MCP transports cap messages (Streamable HTTP: 4 MiB requests; stdio: 10 MB), so a larger
   * result gets an error suggesting async mode. Default 3 MiB.
   */
  readonly maxSyncBytes?: number;
  /** Largest data-plane request body. Default 1 MiB. */
  readonly maxDataRequestBytes?: number;
  /**
   * How long a redemption sent with an `Idempotency-Key` can be repeated by its consumer after a
   * dropped reply (PROTOCOL §7.10), in ms: the entry stays in the store, counted against the
   * budgets, that long after the first take. Default 60 000; 0 turns the extension off.
   */
  readonly retryGraceMs?: number;
  /**
   * Longest a request body may take to arrive once its headers are in, in ms: on the data plane,
   * and with `createS2SPServer` on `/mcp` and SLOP too. A slower body gets 408
   * `request_timeout`. Its `listen()` also gives a client this long to send its request headers
   * (Node's default is 60 s). Default 10 000.
   */
  readonly requestBodyTimeoutMs?: number;
  /**
   * Most cache entries one client may hold at once (per process): unredeemed async results and
   * the unread pages of paged ones. Default 1000. A
   * client is the authenticated client id, else the socket address `/mcp` saw, else the MCP
   * session; beyond the limit the resource tool answers `store_full` for that client only.
   */
  readonly maxEntriesPerClient?: number;
  /**
   * Most bytes of cached rows one client may hold at once (per process), results and unread
   * pages together, counted like `maxEntriesPerClient`. Default: no limit of its own.
   */
  readonly maxBytesPerClient?: number;
  /** Most distinct `row_ids` in one data-plane request. Default 10 000 (400 beyond). */
  readonly maxDataRowIds?: number;
  /** How consumer tools fetch from resource servers (allow-list, timeout, size cap). */
  readonly consumer?: ConsumerFetchOptions;
  /** Where to log. Default: a console logger at `info` on standard error. Never logs tokens. */
  readonly logger?: Logger;
  /**
   * Token budget of a resource tool's control-plane response, in o200k_base tokens (estimated
   * without a tokenizer, on the safe side). A larger abstract comes in pages, the first with a
   * profile of each abstract column (PROTOCOL §7). Per tool: `ResourceToolConfig.tokenBudget`.
   * Default 8 000.
   */
  readonly tokenBudget?: number;
  /**
   * How the abstract is written in the text the model reads: `"json"` (default, PROTOCOL §2 as
   * the Python reference's agents parse it) or `"compact"` (a header row plus value rows, about
   * half the tokens; PROTOCOL §7). `structuredContent` is the §2 object either way.
   */
  readonly abstractEncoding?: AbstractEncoding;
  /**
   * Where the S2SP how-to for the model goes: `"description"` (default: in every resource and
   * consumer tool's description, as before) or `"instructions"` (one short line per tool and short
   * parameter texts, for a shorter `tools/list`; the how-to is `S2SP.instructions`, which
   * `createS2SPServer` appends to its MCP `instructions` and which you add to your own
   * `McpServer`'s). Use it when your clients show the model the server's instructions.
   */
  readonly toolGuidance?: 'description' | 'instructions';
  /**
   * Lists the consumer tools with `_meta["anthropic/alwaysLoad"]: true`, so that a host that
   * defers tools behind a tool search (the Claude Agent SDK) shows them to the model from the
   * first turn: a model that has an S2SP `resource_url` must find a tool to hand it to. Default
   * false.
   */
  readonly alwaysLoadConsumerTools?: boolean;
}

/** A body store: `put`, `take`, `stats` and `close`. */
const BodyStoreSchema = z
  .custom<BodyStore>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      ['put', 'take', 'stats', 'close'].every(
        (method) => typeof (value as Record<string, unknown>)[method] === 'function',
      ),
  )
  .meta({ allowed: 'a BodyStore (put, take, stats, close)', type: 'BodyStore' });

/**
 * The options of {@link createS2SP}: each one's rule, default and description (the options table
 * of `@s2sp/server`'s README is checked against it), and the environment variables
 * `loadServerEnv` reads. The body timeout is the HTTP edge's rule.
 */
export const S2SPOptionsSchema = z.object({
  store: BodyStoreSchema.optional().meta({
    defaultText: 'in-memory',
    description: 'Any `BodyStore`; a shared one (Redis) for several replicas.',
  }),
  maxCacheBytes: MemoryStoreOptionsSchema.shape.maxBytes.describe(
    'Budget of the default store. A full store is a tool error; live entries are never evicted.',
  ),
  // At most a day: a capability URL that outlives a working day is a leak waiting to happen.
  ttlSeconds: positiveNumber({ max: 86_400 }).default(PROTOCOL.defaultTtlSeconds).meta({
    env: 'S2SP_TTL_SECONDS',
    flag: '--ttl',
    description: 'Lifetime of a `resource_url`, in seconds.',
  }),
  publicUrl: httpUrl().optional().meta({
    env: 'S2SP_PUBLIC_URL',
    description:
      'Base URL in `resource_url`s. Without it: the request’s origin if its host is loopback or in `trustedHosts`, else (`createS2SPServer`) the listen address. A `Host` header is never trusted blindly.',
  }),
  trustedHosts: stringList(HostValueSchema)
    .default([])
    .describe('Extra hosts whose requests may set the advertised base.'),
  maxSyncBytes: byteSize()
    .default(3 * 1024 * 1024)
    .describe('Largest sync result (it must fit through MCP transports later as `body_data`).'),
  maxDataRequestBytes: byteSize()
    .default(1024 * 1024)
    .describe('Largest data-plane request body (413 beyond).'),
  retryGraceMs: DataPlaneOptionsSchema.shape.retryGraceMs.meta({
    env: 'S2SP_RETRY_GRACE_MS',
    description:
      'How long a redemption with an `Idempotency-Key` can be repeated after a dropped reply, in ms (0 to 600 000; PROTOCOL §7.10); the entry stays in the store that long. 0 turns it off.',
  }),
  requestBodyTimeoutMs: EdgeOptionsSchema.shape.requestBodyTimeoutMs,
  maxEntriesPerClient: MaxEntriesPerClientSchema,
  maxBytesPerClient: MaxBytesPerClientSchema,
  maxDataRowIds: positiveInteger()
    .default(PROTOCOL.maxRequestRowIds)
    .describe(
      'Most distinct `row_ids` in one data-plane request (400 beyond, token unused). The stores also refuse more ids than the table has rows.',
    ),
  consumer: ConsumerFetchOptionsSchema.default(ConsumerFetchOptionsSchema.parse({})).meta({
    expand: true,
  }),
  logger: LoggerSchema.optional().meta({
    defaultText: 'console, info, stderr',
    description: '`createConsoleLogger({ level })`, `silentLogger`, or your own.',
  }),
  tokenBudget: positiveInteger().default(DEFAULT_TOKEN_BUDGET).meta({
    flag: '--token-budget',
    key: 'tokenBudget',
    description: 'Token budget of a resource tool’s response; larger abstracts are paged.',
  }),
  abstractEncoding: z
    .enum(PROTOCOL.abstractEncodings)
    .default('json')
    .describe('`"compact"`: a header row plus value rows in the text the model reads.'),
  toolGuidance: z
    .enum(['description', 'instructions'])
    .default('description')
    .describe('`"instructions"`: the S2SP how-to once in the server’s instructions.'),
  alwaysLoadConsumerTools: z
    .boolean()
    .default(false)
    .describe(
      'List the consumer tools with `_meta["anthropic/alwaysLoad"]: true`, so hosts that defer tools behind a search (Claude Agent SDK) always show them.',
    ),
} satisfies Record<keyof S2SPOptions, z.ZodType>);

/**
 * {@link S2SPOptions} checked, with defaults applied: what the schema makes of them, with the store
 * and logger always there and the lifetime in milliseconds.
 */
export type ResolvedOptions = Omit<z.output<typeof S2SPOptionsSchema>, 'store' | 'logger'> & {
  readonly store: BodyStore;
  /** True when the store was created here, so `close()` closes it. */
  readonly ownsStore: boolean;
  readonly ttlMs: number;
  readonly logger: Logger;
};

/**
 * Checks every option before anything is created, so a bad setting fails at start-up with an
 * `invalid_config` error naming it, never at the first tool call.
 *
 * @param options - the options as given
 * @param loggerName - the default logger's name
 * @param factory - the factory named in errors
 * @throws S2SPError `invalid_config`
 */
export function resolveOptions(
  options: S2SPOptions,
  loggerName = 's2sp',
  factory = 'createS2SP',
): ResolvedOptions {
  const parsed = parseOptions(S2SPOptionsSchema, options, { factory });
  return {
    ...parsed,
    store: parsed.store ?? createMemoryStore({ maxBytes: parsed.maxCacheBytes }),
    ownsStore: parsed.store === undefined,
    ttlMs: Math.round(parsed.ttlSeconds * 1000),
    logger: parsed.logger ?? createConsoleLogger({ name: loggerName }),
  };
}

/** The options a resource tool may set for itself (`ResourceToolConfig`), by the runtime's rules. */
const ToolOptionsSchema = z.object({
  tokenBudget: S2SPOptionsSchema.shape.tokenBudget.unwrap().optional(),
});

/**
 * Checks a resource tool's own options when it is registered, so a bad one fails there, never at
 * its first call.
 *
 * @param name - the tool, named in the error
 * @param config - the tool's configuration (other members are not looked at)
 * @throws S2SPError `invalid_config` naming the option
 */
export function checkToolOptions(name: string, config: object): void {
  parseOptions(ToolOptionsSchema, config, { factory: `tool ${name}` });
}
