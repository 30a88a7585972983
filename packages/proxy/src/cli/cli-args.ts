/**
 * The `s2sp-proxy` command line, parsed by one pure function so every rule is unit-tested.
 *
 * @module
 */

import { RedisStoreSettingsSchema } from '@s2sp/cache-redis/settings';
import { optionsFromFlags } from '@s2sp/core/options';
import type { LogLevel } from '@s2sp/server';
import { configError, type EdgeEnvOptions, isHostValue } from '@s2sp/server/env';
import type { z } from 'zod';
import { S2SPProxyOptionsSchema } from '../proxy-options.js';
import { TABLE_FORMATS } from '../tables/detect/text-formats.js';
import { parseTableToolRule, type TableToolRule } from '../tables/table-tool-rule.js';
import type { UpstreamTarget } from '../upstream/upstream-target.js';

/** The settings of one `s2sp-proxy` run. */
export interface CliOptions {
  readonly help: boolean;
  readonly version: boolean;
  /** Undefined only with `--help`/`--version`. */
  readonly upstream: UpstreamTarget | undefined;
  readonly stdio: boolean;
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string | undefined;
  readonly redisUrl: string | undefined;
  /** `--redis-prefix`: prefix of the Redis keys (the environment's `S2SP_REDIS_PREFIX` otherwise). */
  readonly redisPrefix: string | undefined;
  readonly ttlSeconds: number | undefined;
  readonly tokenBudget: number | undefined;
  readonly maxEntriesPerClient: number | undefined;
  /**
   * The per-client limits given as flags (`--max-bytes-per-client`, `--max-calls-per-client`,
   * `--max-sessions-per-client`); only those given are set.
   */
  readonly limits: {
    readonly maxBytesPerClient?: number;
    readonly maxCallsPerClient?: number;
    readonly maxSessionsPerClient?: number;
  };
  readonly timeoutSeconds: number;
  /** `--max-upstream-result-bytes`, when given. */
  readonly maxUpstreamResultBytes: number | undefined;
  readonly tableTools: readonly TableToolRule[];
  readonly excludeTools: readonly string[];
  readonly detectTables: boolean;
  readonly configFile: string | undefined;
  /** `--state FILE`: where learned tool knowledge is kept across restarts. */
  readonly stateFile: string | undefined;
  readonly logLevel: LogLevel;
  /**
   * The HTTP edge settings given as flags (`--auth-token`, `--allowed-host`,
   * `--allowed-browser-origin`, `--body-timeout-ms`); only those given are set, so they spread
   * over the config file's and the environment's.
   */
  readonly edge: EdgeEnvOptions;
}

/** `--help` text. */
export const USAGE = `Usage: s2sp-proxy [options] -- <command> [args...]
       s2sp-proxy [options] --upstream-url <url>

S2SP in front of any MCP server. Tools that return tables gain abstract_domains and mode: the
model sees the columns it asks for, and consumers fetch the rest from the proxy's data plane.

Upstream (one of):
  -- <command> [args...]     run an MCP server on stdio (restarted with backoff if it crashes)
  --upstream-url <url>       an MCP server on Streamable HTTP
  --header "Name: value"     header for --upstream-url (repeatable), e.g. Authorization

Downstream:
  --port <n>                 HTTP port for /mcp and the data plane (default 3010; with --stdio, any free port)
  --host <addr>              interface to bind (default 127.0.0.1)
  --public-url <url>         base URL advertised in resource_urls (default http://<host>:<port>)
  --stdio                    serve MCP on stdin/stdout (the data plane still listens on --port)

Table tools:
  --table-tool <name>[:<json-pointer>][:<format>]  treat a tool as a table tool from the start
                             (repeatable); the pointer says where its rows are (search:/results),
                             the format what they are in (${TABLE_FORMATS.join('|')})
  --exclude-tool <name>      never give a tool S2SP parameters (repeatable)
  --no-detect                only --table-tool tools and tools whose outputSchema declares rows
  --config <file>            JSON or YAML: { tableTools: [...], excludeTools: [...], detect: bool,
                             tokenBudget: n }
  --token-budget <n>         tokens a table tool's response may take (default 8000); a larger
                             abstract is paged: rows that fit, a profile and a next_cursor
  --state <file>             keep what the proxy learned about tools across restarts (JSON,
                             at most 1 MiB; each client's catalogue under its client key)

HTTP edge (the servers' own; a flag wins over --config, which wins over the environment):
  --auth-token <token>       require Authorization: Bearer <token> on /mcp (repeatable; at least
                             16 characters). Prefer S2SP_AUTH_TOKENS (comma-separated) or the
                             config file: other local users can read a command line
  --allowed-host <host>      a Host /mcp answers besides loopback names, the bound address and
                             --public-url's host (repeatable; * turns the check off); env
                             S2SP_ALLOWED_HOSTS
  --allowed-browser-origin <origin>
                             a browser origin that may call /mcp (repeatable); env
                             S2SP_ALLOWED_BROWSER_ORIGINS
  --body-timeout-ms <n>      time a client has to send its request headers, and then its body,
                             on /mcp and the data plane (default 10000); env S2SP_BODY_TIMEOUT_MS
  The data plane (/s2sp/data/…) needs no bearer token: a resource_url is its own credential.

Data plane and limits:
  --redis <url>              keep rows in Redis (@s2sp/cache-redis) instead of memory
  --redis-prefix <prefix>    prefix of the proxy's Redis keys (default s2sp:); give every app
                             on one Redis its own; env S2SP_REDIS_PREFIX
  --ttl <seconds>            resource_url lifetime (default 600)
  --timeout <seconds>        time limit of one upstream request, reset by progress (default 60)
  --max-upstream-result-bytes <n>
                             bytes one upstream answer may have (default 67108864); a larger
                             one fails only its own call, with payload_too_large
  --max-entries-per-client <n>
                             cached results and unread pages one downstream client may hold
                             (default 1000; a client is its auth id, else its address)
  --max-bytes-per-client <n> bytes of cached rows one client may hold (default 67108864)
  --max-calls-per-client <n> tool calls one client may have running at once (default 8)
  --max-sessions-per-client <n>
                             HTTP sessions one client may hold; its next one closes its
                             idlest (default 10)

Other:
  --log-level <level>        debug, info (default), warn, error or silent (logs go to stderr)
  --help, --version
`;

const VALUE_FLAGS = new Set([
  '--port',
  '--host',
  '--public-url',
  '--upstream-url',
  '--header',
  '--redis',
  '--redis-prefix',
  '--ttl',
  '--timeout',
  '--token-budget',
  '--max-entries-per-client',
  '--max-bytes-per-client',
  '--max-calls-per-client',
  '--max-sessions-per-client',
  '--max-upstream-result-bytes',
  '--table-tool',
  '--exclude-tool',
  '--config',
  '--state',
  '--log-level',
  '--auth-token',
  '--allowed-host',
  '--allowed-browser-origin',
  '--body-timeout-ms',
]);
const LOG_LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error', 'silent'];
const SWITCHES = new Set(['--stdio', '--no-detect', '--help', '-h', '--version']);

function number(flag: string, text: string, min: number, max: number, integer: boolean): number {
  const value = Number(text);
  if (!(integer ? /^\d+$/ : /^\d+(\.\d+)?$/).test(text) || value < min || value > max) {
    throw configError(
      flag,
      `${JSON.stringify(text)} is not ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}.`,
    );
  }
  return value;
}

function httpUrl(flag: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // An upstream URL may carry a password or a token: never echo it.
    const shown = flag === '--upstream-url' ? 'the value' : JSON.stringify(text);
    throw configError(flag, `${shown} is not a URL; give an absolute http(s) URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw configError(flag, `must be an http or https URL, got ${url.protocol}`);
  }
  return text;
}

/**
 * Reads the command line (`process.argv.slice(2)`). Pure: no I/O.
 *
 * @throws S2SPError `invalid_config` (see `configError`) naming the option at fault
 */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  for (let i = 0; i < own.length; i++) {
    const arg = own[i] ?? '';
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (SWITCHES.has(flag) && eq < 0) {
      switches.add(flag);
    } else if (VALUE_FLAGS.has(flag)) {
      const value = eq > 0 ? arg.slice(eq + 1) : own[++i];
      if (value === undefined) throw configError(flag, 'needs a value.');
      values.set(flag, [...(values.get(flag) ?? []), value]);
    } else {
      throw configError(
        arg,
        'unknown option (see s2sp-proxy --help). Put the upstream command after "--".',
      );
    }
  }
  const last = (flag: string) => values.get(flag)?.at(-1);
  const help = switches.has('--help') || switches.has('-h');
  const version = switches.has('--version');
  const stdio = switches.has('--stdio');

  const upstreamUrl = last('--upstream-url');
  const headers: Record<string, string> = {};
  for (const header of values.get('--header') ?? []) {
    const colon = header.indexOf(':');
    const name = header.slice(0, Math.max(colon, 0)).trim();
    if (colon < 1 || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      throw configError(
        '--header',
        'must look like "Name: value", e.g. "Authorization: Bearer …".',
      );
    }
    headers[name] = header.slice(colon + 1).trim();
  }
  if (upstreamUrl && command.length > 0) {
    throw configError(
      '--upstream-url',
      'give either --upstream-url or a command after "--", not both.',
    );
  }
  if (!upstreamUrl && Object.keys(headers).length > 0) {
    throw configError('--header', 'only applies to --upstream-url.');
  }
  let upstream: UpstreamTarget | undefined;
  if (upstreamUrl) {
    upstream = { kind: 'http', url: httpUrl('--upstream-url', upstreamUrl), headers };
  } else if (command.length > 0) {
    upstream = { kind: 'stdio', command: command[0] ?? '', args: command.slice(1) };
  } else if (!help && !version) {
    throw configError(
      'upstream',
      'no upstream MCP server: put its command after "--" (s2sp-proxy -- npx -y @modelcontextprotocol/server-postgres postgresql://…) or pass --upstream-url.',
    );
  }

  const host = last('--host') ?? '127.0.0.1';
  if (!isHostValue(host)) {
    throw configError('--host', `${JSON.stringify(host)} is not a host name or IP address.`);
  }
  const port = last('--port');
  // Every flag that sets a proxy option, by the `flag` on the option's schema, checked by the
  // option's own rule: --public-url, --ttl, --timeout, --token-budget,
  // --max-entries-per-client and the HTTP edge's --auth-token, --allowed-host,
  // --allowed-browser-origin and --body-timeout-ms.
  const flagged = optionsFromFlags(S2SPProxyOptionsSchema, values, { factory: 's2sp-proxy' })
    .options as Partial<z.output<typeof S2SPProxyOptionsSchema>>;
  const redis = last('--redis');
  if (redis !== undefined && !/^rediss?:\/\//.test(redis)) {
    throw configError('--redis', 'must be a redis:// or rediss:// URL.');
  }
  // --redis-prefix: the `flag` on the Redis store's own keyPrefix option, checked by its rule.
  const redisSettings = optionsFromFlags(RedisStoreSettingsSchema, values, {
    factory: 's2sp-proxy',
  }).options as { keyPrefix?: string };
  if (redisSettings.keyPrefix !== undefined && redis === undefined) {
    throw configError('--redis-prefix', 'only applies with --redis <url>.');
  }
  const logLevel = last('--log-level') ?? 'info';
  const edge: EdgeEnvOptions = {
    ...(flagged.allowedHosts && { allowedHosts: flagged.allowedHosts }),
    ...(flagged.allowedBrowserOrigins && { allowedBrowserOrigins: flagged.allowedBrowserOrigins }),
    ...(flagged.auth && { auth: flagged.auth }),
    ...(flagged.requestBodyTimeoutMs !== undefined && {
      requestBodyTimeoutMs: flagged.requestBodyTimeoutMs,
    }),
  };
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw configError('--log-level', 'must be one of debug, info, warn, error, silent.');
  }
  return {
    help,
    version,
    upstream,
    stdio,
    port: port === undefined ? (stdio ? 0 : 3010) : number('--port', port, 0, 65535, true),
    host,
    publicUrl: flagged.publicUrl,
    redisUrl: redis,
    redisPrefix: redisSettings.keyPrefix,
    ttlSeconds: flagged.ttlSeconds,
    timeoutSeconds:
      flagged.timeoutSeconds ?? S2SPProxyOptionsSchema.shape.timeoutSeconds.parse(undefined),
    tokenBudget: flagged.tokenBudget,
    maxUpstreamResultBytes: flagged.maxUpstreamResultBytes,
    maxEntriesPerClient: flagged.maxEntriesPerClient,
    limits: {
      ...(flagged.maxBytesPerClient !== undefined && {
        maxBytesPerClient: flagged.maxBytesPerClient,
      }),
      ...(flagged.maxCallsPerClient !== undefined && {
        maxCallsPerClient: flagged.maxCallsPerClient,
      }),
      ...(flagged.maxSessionsPerClient !== undefined && {
        maxSessionsPerClient: flagged.maxSessionsPerClient,
      }),
    },
    tableTools: (values.get('--table-tool') ?? []).map((t) =>
      parseTableToolRule('--table-tool', t),
    ),
    excludeTools: values.get('--exclude-tool') ?? [],
    detectTables: !switches.has('--no-detect'),
    configFile: last('--config'),
    stateFile: flagged.stateFile,
    logLevel: logLevel as LogLevel,
    edge,
  };
}
