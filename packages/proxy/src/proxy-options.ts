/**
 * The options schema of {@link createS2SPProxy}: each option's rule, default, `s2sp-proxy` flag and
 * config-file key, with the servers' own rules for what the proxy shares with them.
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import {
  byteSize,
  httpUrl,
  milliseconds,
  positiveInteger,
  positiveNumber,
  stringList,
} from '@s2sp/core/options';
import { EdgeOptionsSchema, S2SPOptionsSchema, SwitchSchema } from '@s2sp/server/env';
import { z } from 'zod';
import type { S2SPProxyOptions } from './proxy-types.js';
import { TABLE_FORMATS } from './tables/detect/text-formats.js';
import type { ProxyRuntimeOptions, SharedRuntimeOptions } from './tables/s2sp-call.js';
import type { TableToolRule } from './tables/table-tool-rule.js';
import type { UpstreamTarget } from './upstream/upstream-target.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** The options the proxy takes as `createS2SP` takes them: same rules, flags and documentation. */
const SHARED = S2SPOptionsSchema.pick({
  store: true,
  ttlSeconds: true,
  tokenBudget: true,
} satisfies Record<keyof SharedRuntimeOptions, true>);

/**
 * The options of `createS2SPProxy`. The HTTP edge's options are the servers' (same rules, same
 * variables and flags); `store`, `ttlSeconds` and the token budget are `createS2SP`'s own, and
 * `maxEntriesPerClient` its rule. The proxy README's option list is checked against it.
 */
export const S2SPProxyOptionsSchema = z.object({
  ...EdgeOptionsSchema.omit({ publicUrl: true, logger: true }).shape,
  ...SHARED.shape,
  upstream: z
    .custom<UpstreamTarget>(
      (value) =>
        isObject(value) &&
        ((value.kind === 'stdio' && typeof value.command === 'string' && value.command !== '') ||
          (value.kind === 'http' && typeof value.url === 'string')),
    )
    .meta({
      allowed: "{ kind: 'stdio', command, args?, env?, cwd? } or { kind: 'http', url, headers? }",
      type: 'UpstreamTarget',
      description:
        'The MCP server to stand in front of: a command on stdio, or a Streamable HTTP URL.',
    }),
  publicUrl: httpUrl().optional().meta({
    flag: '--public-url',
    defaultText: 'the bound address',
    description: 'Base URL advertised in `resource_url`s.',
  }),
  maxEntriesPerClient: S2SPOptionsSchema.shape.maxEntriesPerClient.meta({
    flag: '--max-entries-per-client',
  }),
  maxBytesPerClient: S2SPOptionsSchema.shape.maxBytesPerClient
    .unwrap()
    .default(64 * 1024 * 1024)
    .meta({
      flag: '--max-bytes-per-client',
      description:
        'Bytes of cached rows one downstream client (its auth id, else its address) may hold, results and unread pages together; beyond it that client’s table calls answer `store_full`.',
    }),
  maxCallsPerClient: positiveInteger().default(8).meta({
    flag: '--max-calls-per-client',
    description:
      'Tool calls one downstream client may have running at once; more are refused with `unavailable` for that client only.',
  }),
  maxSessionsPerClient: positiveInteger().default(10).meta({
    flag: '--max-sessions-per-client',
    description:
      'Streamable HTTP sessions one client may hold; its next `initialize` closes its own session idle the longest.',
  }),
  tableTools: z
    .array(
      z.custom<TableToolRule>(
        (value) =>
          isObject(value) &&
          typeof value.name === 'string' &&
          (value.format === undefined ||
            (TABLE_FORMATS as readonly unknown[]).includes(value.format)),
      ),
    )
    .readonly()
    .default([])
    .meta({
      key: 'tableTools',
      description: `Tools that are table tools from the start (\`{ name, pointer?, format? }\`; format one of ${TABLE_FORMATS.join(', ')}).`,
    }),
  excludeTools: stringList()
    .default([])
    .meta({ key: 'excludeTools', description: 'Tools that never get S2SP treatment.' }),
  stateFile: z.string().min(1).optional().meta({
    flag: '--state',
    defaultText: 'none: nothing is kept',
    description:
      'A JSON file where the proxy keeps what it learned about tools across restarts: table tools from declared schemas and config, and each client’s own column catalogue under its client key (at most 1 MiB, written atomically with mode 0600; a path that is there must be a regular file).',
  }),
  detectTables: z
    .boolean()
    .default(true)
    .meta({ key: 'detect', description: 'Make a tool a table tool once it returns a table.' }),
  alwaysLoadTableTools: z.boolean().default(false).meta({
    flag: '--always-load-table-tools',
    key: 'alwaysLoadTableTools',
    description:
      'List the table tools with `_meta["anthropic/alwaysLoad"]: true`, so hosts that defer tools behind a search (Claude Agent SDK) always show them (`true` or `false`).',
  }),
  timeoutSeconds: positiveNumber().default(60).meta({
    flag: '--timeout',
    description:
      'Time limit, in seconds, of one request to the upstream (reset by its progress), of one request the upstream relays to a client (sampling, elicitation, roots), and of a client’s answer to one input round.',
  }),
  startupTimeoutSeconds: positiveNumber().default(120).meta({
    flag: '--startup-timeout',
    key: 'startupTimeoutSeconds',
    description:
      'Time limit, in seconds, of starting one upstream session and completing its MCP initialisation: the one opened at start (the proxy exits if it is exceeded) and each client’s own, opened on its first request. Generous, for a first `npx` run that downloads and compiles.',
  }),
  restartDelayMs: milliseconds()
    .default(500)
    .describe('First restart delay of a crashed upstream (doubles up to 30 s).'),
  maxResultChars: positiveInteger()
    .default(64 * 1024 * 1024)
    .describe('Largest tool-result text the proxy parses looking for a table, in characters.'),
  maxUpstreamResultBytes: byteSize()
    .default(64 * 1024 * 1024)
    .meta({
      flag: '--max-upstream-result-bytes',
      description:
        'The most bytes one upstream answer may have (a JSON body or SSE event over HTTP, a line on stdio); a larger one fails only its own request with `payload_too_large`, without restarting the upstream.',
    }),
  sharedUpstream: SwitchSchema.default(false).meta({
    flag: '--shared-upstream',
    description:
      'One upstream session for every client, instead of one per client: for an upstream that keeps no state per session. The upstream’s requests to a client that no call relates are then refused unless exactly one client is connected.',
  }),
  maxUpstreamSessions: positiveInteger().default(32).meta({
    flag: '--max-upstream-sessions',
    description:
      'Upstream sessions open at once, one per client (a stdio upstream runs a process for each); a client beyond it is refused with `unavailable` until one closes.',
  }),
  upstreamIdleSeconds: positiveNumber().default(600).meta({
    flag: '--upstream-idle',
    description:
      'A client without an MCP session of its own (2026-07-28) keeps its upstream session this long after its last request, in seconds; a 2025-era client’s closes with its MCP session.',
  }),
  maxSessions: positiveInteger()
    .default(100)
    .describe(
      'Most concurrent Streamable HTTP sessions; a new one beyond it closes the session idle the longest.',
    ),
  logger: EdgeOptionsSchema.shape.logger.meta({
    defaultText: 'stderr, info',
    description: 'Where to log. Never logs tokens.',
  }),
  onUpstreamStderr: z
    .custom<(chunk: string) => void>((value) => typeof value === 'function')
    .optional()
    .meta({
      type: 'function',
      defaultText: 'copied to stderr',
      description: 'The upstream child’s standard error.',
    }),
} satisfies Record<keyof S2SPProxyOptions, z.ZodType>);

/** What the proxy's options schema makes of {@link S2SPProxyOptions}. */
export type ResolvedProxyOptions = z.output<typeof S2SPProxyOptionsSchema> & {
  readonly logger?: Logger;
};

const RUNTIME_KEYS = [
  ...(Object.keys(SHARED.shape) as (keyof SharedRuntimeOptions)[]),
  'maxEntriesPerClient',
  'maxBytesPerClient',
  'requestBodyTimeoutMs',
] satisfies (keyof ProxyRuntimeOptions)[];

/**
 * The options `createS2SP` takes from the proxy's, as they are (only those set).
 *
 * @param options - the proxy's options, checked
 */
export function runtimeOptionsOf(options: ResolvedProxyOptions): ProxyRuntimeOptions {
  const picked: Record<string, unknown> = {};
  for (const key of RUNTIME_KEYS) if (options[key] !== undefined) picked[key] = options[key];
  return picked as ProxyRuntimeOptions;
}
