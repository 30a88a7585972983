import { type Logger, normalizePublicUrl, PROTOCOL, S2SPError } from '@s2sp/core';
import { positiveOption } from '@s2sp/core/options';
import { type BodyStore, createMemoryStore } from '@s2sp/core/store';
import type { ConsumerFetchOptions } from '../consumer/consumer-tool.js';
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
  /** Lifetime of a `resource_url`, in seconds. Default 600. */
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
}

/** {@link S2SPOptions} checked, with defaults applied. */
export interface ResolvedOptions {
  readonly store: BodyStore;
  /** True when the store was created here, so `close()` closes it. */
  readonly ownsStore: boolean;
  readonly ttlMs: number;
  readonly maxSyncBytes: number;
  readonly maxDataRequestBytes: number | undefined;
  readonly requestBodyTimeoutMs: number;
  readonly publicUrl: string | undefined;
  readonly trustedHosts: readonly string[];
  readonly consumer: ConsumerFetchOptions;
  readonly logger: Logger;
  readonly tokenBudget: number;
  readonly abstractEncoding: AbstractEncoding;
  readonly toolGuidance: 'description' | 'instructions';
}

/**
 * Checks every option before anything is created, so a bad setting fails at start-up with an
 * `invalid_config` error naming it, never at the first tool call.
 *
 * @throws S2SPError `invalid_config`
 */
export function resolveOptions(options: S2SPOptions, loggerName = 's2sp'): ResolvedOptions {
  const ttlMs = Math.round(
    positiveOption('ttlSeconds', options.ttlSeconds, PROTOCOL.defaultTtlSeconds) * 1000,
  );
  const maxSyncBytes = positiveOption('maxSyncBytes', options.maxSyncBytes, 3 * 1024 * 1024, {
    integer: true,
  });
  const maxDataRequestBytes =
    options.maxDataRequestBytes === undefined
      ? undefined
      : positiveOption('maxDataRequestBytes', options.maxDataRequestBytes, 0, { integer: true });
  const tokenBudget = positiveOption('tokenBudget', options.tokenBudget, DEFAULT_TOKEN_BUDGET, {
    integer: true,
  });
  const abstractEncoding = options.abstractEncoding ?? 'json';
  if (abstractEncoding !== 'json' && abstractEncoding !== 'compact') {
    throw new S2SPError(
      'invalid_config',
      `abstractEncoding must be "json" or "compact", got ${JSON.stringify(abstractEncoding)}.`,
    );
  }
  const toolGuidance = options.toolGuidance ?? 'description';
  if (toolGuidance !== 'description' && toolGuidance !== 'instructions') {
    throw new S2SPError(
      'invalid_config',
      `toolGuidance must be "description" or "instructions", got ${JSON.stringify(toolGuidance)}.`,
    );
  }
  const requestBodyTimeoutMs = positiveOption(
    'requestBodyTimeoutMs',
    options.requestBodyTimeoutMs,
    10_000,
    { integer: true },
  );
  const publicUrl =
    options.publicUrl === undefined ? undefined : normalizePublicUrl(options.publicUrl);
  const store =
    options.store ??
    createMemoryStore(
      options.maxCacheBytes === undefined ? {} : { maxBytes: options.maxCacheBytes },
    );
  return {
    store,
    ownsStore: options.store === undefined,
    ttlMs,
    maxSyncBytes,
    maxDataRequestBytes,
    requestBodyTimeoutMs,
    publicUrl,
    trustedHosts: options.trustedHosts ?? [],
    consumer: options.consumer ?? {},
    logger: options.logger ?? createConsoleLogger({ name: loggerName }),
    tokenBudget,
    abstractEncoding,
    toolGuidance,
  };
}
