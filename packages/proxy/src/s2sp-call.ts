/**
 * The proxy's one seam to `@s2sp/server`: the data plane, the parameters and guidance a table tool
 * gains, and turning rows plus the S2SP arguments into the PROTOCOL §2 result — all from
 * `createS2SP`, so the proxy answers exactly as a resource tool written with `@s2sp/server` does.
 *
 * @module
 */
import { type BodyStore, DEFAULT_TTL_SECONDS } from '@s2sp/core';
import { createS2SP, type Logger, resourceParameters, resourceToolDescription } from '@s2sp/server';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { CallToolResult } from './mcp-sdk.js';

/** Options for {@link createS2SPCall}. */
export interface S2SPCallOptions {
  /** Base URL advertised in `resource_url`s. */
  readonly publicUrl: string;
  readonly store?: BodyStore;
  readonly ttlSeconds?: number;
  readonly logger: Logger;
}

/** What the proxy needs from S2SP. */
export interface S2SPCall {
  /** Serves `/s2sp/data/:token` and `/s2sp/health`. */
  readonly dataPlane: Hono;
  /** JSON Schema properties a table tool gains (`abstract_domains`, `mode`). */
  readonly parameters: Readonly<Record<string, Record<string, unknown>>>;
  /** The S2SP guidance appended to a table tool's description. */
  describe(description: string | undefined): string;
  /** Rows plus the S2SP arguments → the PROTOCOL §2 result, or an `isError` result. */
  resourceResult(
    rows: readonly object[],
    args: { abstract_domains?: unknown; mode?: unknown },
    context: { toolName: string; knownColumns?: readonly string[] },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

// Upstream schemas are JSON Schema, so the zod parameters are converted once, the way the SDK's
// McpServer lists them.
const PARAMETERS = (
  z.toJSONSchema(z.object(resourceParameters), { io: 'input' }) as {
    properties: Record<string, Record<string, unknown>>;
  }
).properties;

/** Creates the S2SP seam. */
export function createS2SPCall(options: S2SPCallOptions): S2SPCall {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const s2sp = createS2SP({
    publicUrl: options.publicUrl,
    ttlSeconds,
    logger: options.logger,
    // The proxy does not offer `cursor` (nor `filter`) yet, so a paged result would leave the model
    // a next_cursor it cannot send back: no paging, the whole abstract as before.
    tokenBudget: Number.MAX_SAFE_INTEGER,
    ...(options.store && { store: options.store }),
  });
  return {
    dataPlane: s2sp.dataPlane,
    parameters: PARAMETERS,
    describe: (description) =>
      resourceToolDescription(description ?? '', ttlSeconds * 1000).trimStart(),
    resourceResult: (rows, args, context) => s2sp.resourceResult(rows, args, context),
    close: () => s2sp.close(),
  };
}
