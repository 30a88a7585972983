/**
 * The proxy's one seam to `@s2sp/server`: the data plane, the parameters and guidance a table tool
 * gains, and turning rows plus the S2SP arguments into the PROTOCOL §2 result — all from
 * `createS2SP`, so the proxy answers exactly as a resource tool written with `@s2sp/server` does.
 * Also the server's pure parts the rest of the proxy works with ({@link GATEWAY_PARTS}, handed
 * down by `createS2SPProxy`) and the server's types it names: no library file of the proxy but
 * this one, `proxy.ts`, `proxy-options.ts`, `cli/proxy-settings.ts` and `main.ts` imports
 * `@s2sp/server*` (CONTRIBUTING.md, "The proxy's edge").
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { PROTOCOL } from '@s2sp/core';
import {
  clientKey,
  createClientConcurrencyLimit,
  createS2SP,
  estimateTokens,
  type S2SPOptions,
  s2spCapability,
  traceToolCall,
} from '@s2sp/server';
import {
  parseTableRequest,
  plainTextTokens,
  profileColumns,
  readToolCall,
  resourceExtensionParameters,
  resourceToolDescription,
  shortResourceToolParameters,
  type TableResultArguments,
  type TableResultContext,
} from '@s2sp/server/gateway';
import { createModernMcp } from '@s2sp/server/http';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { CallToolResult } from '../mcp-sdk.js';

// The server's types the proxy's other files name: named here, at the seam, and nowhere else.
export type { ShutdownOptions } from '@s2sp/server';
export type {
  ClientConcurrencyLimit,
  RowBytes,
  RowJson,
  TableRequest,
  TableResultContext,
  ToolCall,
} from '@s2sp/server/gateway';
export type { S2SPEdge, S2SPEdgeOptions } from '@s2sp/server/http';

/**
 * The server's functions the rest of the proxy works with: pure, or (the two factories) building
 * a part the caller owns. `createS2SPProxy` hands them down to the parts it builds, so the tables,
 * the sessions and the upstream relay follow the servers' rules without importing the server.
 */
export interface GatewayParts {
  /** Reads a `tools/call`'s request context (token, signal, progress). */
  readonly readToolCall: typeof readToolCall;
  /** Checks the S2SP arguments of a call. */
  readonly parseTableRequest: typeof parseTableRequest;
  /** What plain text costs a model, in tokens. */
  readonly plainTextTokens: typeof plainTextTokens;
  /** One value's estimated token count. */
  readonly estimateTokens: typeof estimateTokens;
  /** A column profile (distinct counts, top values). */
  readonly profileColumns: typeof profileColumns;
  /** Who a call comes from, as the servers' per-client limits key it. */
  readonly clientKey: typeof clientKey;
  /** A call's span, as the servers trace theirs. */
  readonly traceToolCall: typeof traceToolCall;
  /** The S2SP capability a server declares. */
  readonly s2spCapability: typeof s2spCapability;
  /** A concurrency limit per client. */
  readonly createClientConcurrencyLimit: typeof createClientConcurrencyLimit;
  /** The 2026-07-28 MCP endpoint behind the servers' edge. */
  readonly createModernMcp: typeof createModernMcp;
}

/** The server's parts, for `createS2SPProxy` to hand down (and for tests that build one part). */
export const GATEWAY_PARTS: GatewayParts = Object.freeze({
  readToolCall,
  parseTableRequest,
  plainTextTokens,
  estimateTokens,
  profileColumns,
  clientKey,
  traceToolCall,
  s2spCapability,
  createClientConcurrencyLimit,
  createModernMcp,
});

/** The options of `createS2SP` the proxy takes as they are, under the same names. */
export type SharedRuntimeOptions = Pick<S2SPOptions, 'store' | 'ttlSeconds' | 'tokenBudget'>;

/** What the proxy's data plane is built with: those, its per-client bounds and body timeout. */
export type ProxyRuntimeOptions = SharedRuntimeOptions &
  Pick<S2SPOptions, 'maxEntriesPerClient' | 'maxBytesPerClient' | 'requestBodyTimeoutMs'>;

/** Options for {@link createS2SPCall}: the proxy's runtime options, and where it is reached. */
export interface S2SPCallOptions extends ProxyRuntimeOptions {
  /** Base URL advertised in `resource_url`s. */
  readonly publicUrl: string;
  readonly logger: Logger;
}

/** What the proxy needs from S2SP. */
export interface S2SPCall {
  /** Serves `/s2sp/data/:token` and `/s2sp/health`. */
  readonly dataPlane: Hono;
  /** JSON Schema properties a table tool gains: {@link S2SP_PARAMETERS}. */
  readonly parameters: Readonly<Record<string, Record<string, unknown>>>;
  /**
   * A table tool's description: the upstream's, then the one line that points to the
   * instructions (the servers' `toolGuidance: "instructions"` line).
   */
  describe(description: string | undefined): string;
  /**
   * The servers' S2SP paragraph of MCP `instructions` (`S2SP.instructions`, with this proxy's
   * TTL): what a table tool's parameters mean, said once per session (see `proxy-instructions.ts`).
   */
  readonly instructions: string;
  /**
   * Rows plus the S2SP arguments → the PROTOCOL §2 result, or an `isError` result. With a
   * `cursor`, the next page from the store (the rows are not read).
   */
  resourceResult(
    rows: readonly object[],
    args: TableResultArguments,
    context: TableResultContext,
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Largest `abstract_budget_tokens` a call may ask for. */
export const MAX_ABSTRACT_BUDGET_TOKENS = 1_000_000;

/**
 * The proxy's own parameter of table tools: which array of a result with several is the table,
 * for the model to name when detection cannot tell.
 */
export const TABLE_PARAMETER = 'table';
/** Longest `table` argument: a member name or a JSON Pointer. */
export const MAX_TABLE_ARGUMENT = 256;

/**
 * The JSON Schema properties a table tool gains: `abstract_domains`, `mode`, the extensions
 * `filter` and `cursor` (PROTOCOL §7), and the proxy's own `abstract_budget_tokens` and `table`,
 * each in its short form without a description, as a server with `toolGuidance: "instructions"`
 * lists them: the instructions the proxy serves explain them once (`proxy-instructions.ts`), and
 * every token here is paid by each table tool on every `tools/list`. The values are checked when
 * a call comes (`tool-call.ts`), not by the schema. A tool that declares a parameter of one of
 * these names keeps its own, and the proxy's is listed under a prefixed name (see
 * `parameterNames`). Upstream schemas are JSON Schema, so the zod parameters are converted once,
 * the way the SDK's McpServer lists them.
 */
export const S2SP_PARAMETERS: Readonly<Record<string, Record<string, unknown>>> = {
  ...(
    z.toJSONSchema(z.object(shortResourceToolParameters), { io: 'input' }) as {
      properties: Record<string, Record<string, unknown>>;
    }
  ).properties,
  abstract_budget_tokens: { type: ['integer', 'null'] },
  [TABLE_PARAMETER]: { type: 'string' },
};

/**
 * The S2SP extension parameters (`filter`, `cursor`) and the proxy's `table`: each is the proxy's
 * only for a tool that does not declare a parameter of that name itself (PROTOCOL §7.2).
 */
export const EXTENSION_PARAMETERS: readonly string[] = [
  ...Object.keys(resourceExtensionParameters),
  TABLE_PARAMETER,
];

/** Creates the S2SP seam. */
export function createS2SPCall(options: S2SPCallOptions): S2SPCall {
  const ttlSeconds = options.ttlSeconds ?? PROTOCOL.defaultTtlSeconds;
  const s2sp = createS2SP({ ...options, ttlSeconds });
  return {
    dataPlane: s2sp.dataPlane,
    parameters: S2SP_PARAMETERS,
    describe: (description) =>
      resourceToolDescription(
        description ?? '',
        ttlSeconds * 1000,
        undefined,
        'instructions',
      ).trimStart(),
    instructions: s2sp.instructions,
    // The server builds its results with SDK v2's types; the proxy relays them as SDK v1's.
    resourceResult: (rows, args, context) =>
      s2sp.resourceResult(rows, args, context) as Promise<CallToolResult>,
    close: () => s2sp.close(),
  };
}
