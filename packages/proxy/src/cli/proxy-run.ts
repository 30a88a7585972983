/**
 * One `s2sp-proxy` run's settings: the command line, its `--config` file and the environment,
 * read together by the one settings reader (a flag wins over the file, the file over the
 * environment, and `createS2SPProxy`'s defaults over nothing). Pure but for the file read it is
 * given, so every rule is unit-tested.
 *
 * @module
 */

import {
  configError,
  configErrorVariable,
  misspeltVariables,
  readSettings,
  type SettingsSources,
} from '@s2sp/core/options';
import type { S2SPProxyOptions } from '../proxy-types.js';
import type { UpstreamTarget } from '../upstream/upstream-target.js';
import { parseCliArgs } from './cli-args.js';
import { parseConfigFile, readConfigFile } from './config-file.js';
import { NEIGHBOUR_SETTINGS, PROXY_VARIABLES, ProxySettingsSchema } from './proxy-settings.js';

/** The environment as the settings reader takes it (`process.env`, or a test's own record). */
type Env = NonNullable<SettingsSources['env']>;

/** What one `s2sp-proxy` run is told. */
export interface ProxyRun {
  readonly help: boolean;
  readonly version: boolean;
  /** Undefined only with `--help`/`--version`. */
  readonly upstream: UpstreamTarget | undefined;
  readonly stdio: boolean;
  readonly port: number;
  readonly host: string;
  readonly logLevel: ReturnType<typeof ProxySettingsSchema.shape.logLevel.parse>;
  /** `--redis` and `--redis-prefix` (or `S2SP_REDIS_PREFIX`), for `createRedisBodyStore`. */
  readonly redis: { readonly url: string; readonly keyPrefix?: string } | undefined;
  /**
   * Variables that look like a setting's but are misspelt (`S2SP_AUTH_TOKEN`), each with the one
   * meant: warn of each at start (a misspelt variable is ignored).
   */
  readonly misspelt: ReturnType<typeof misspeltVariables>;
  /** `createS2SPProxy`'s options that were set (only those), table tools and exclusions added up. */
  readonly options: Omit<S2SPProxyOptions, 'upstream' | 'store' | 'logger' | 'onUpstreamStderr'>;
}

/**
 * Reads one run's settings.
 *
 * @param argv - the arguments (`process.argv.slice(2)`)
 * @param env - the environment; only the variables the proxy reads are looked at
 * @param readFile - the text of the `--config` file; by default read by `readConfigFile`, which
 *   takes regular files only, within a size cap
 * @throws S2SPError `invalid_config` whose `data.variable` names the flag, variable or
 *   `<file>: <key>` at fault
 */
export function readProxyRun(
  argv: readonly string[],
  env: Env,
  readFile: (path: string) => string = readConfigFile,
): ProxyRun {
  const cli = parseCliArgs(argv);
  let file: ReturnType<typeof parseConfigFile> | undefined;
  if (cli.configFile !== undefined) {
    let text: string;
    try {
      text = readFile(cli.configFile);
    } catch (error) {
      if (configErrorVariable(error) !== undefined) throw error;
      throw configError('--config', `cannot read ${cli.configFile}.`);
    }
    file = parseConfigFile(text, cli.configFile);
  }
  const variables = Object.fromEntries(
    Object.entries(env).filter(([name]) => PROXY_VARIABLES.has(name)),
  );
  const { options, names } = readSettings(
    ProxySettingsSchema,
    { flags: cli.flags, ...(file && { file }), env: variables },
    { factory: 's2sp-proxy' },
  );
  const { port, host, logLevel, redis, tableTools, excludeTools, detectTables, ...rest } = options;
  if (redis?.url === undefined && names['redis.keyPrefix'] === '--redis-prefix')
    throw configError('--redis-prefix', 'only applies with --redis <url>.');
  const { shape } = ProxySettingsSchema;
  return {
    help: cli.help,
    version: cli.version,
    upstream: cli.upstream,
    stdio: cli.stdio,
    port: port ?? (cli.stdio ? 0 : 3010),
    host: shape.host.parse(host),
    logLevel: shape.logLevel.parse(logLevel),
    // Among the names of the proxy's settings and of the servers' (an app beside it may share
    // the environment), so that none of them is taken for a slip of another.
    misspelt: misspeltVariables(env, [ProxySettingsSchema, ...NEIGHBOUR_SETTINGS]),
    redis:
      redis?.url === undefined
        ? undefined
        : { url: redis.url, ...(redis.keyPrefix !== undefined && { keyPrefix: redis.keyPrefix }) },
    options: {
      ...rest,
      tableTools: [...(tableTools ?? []), ...cli.tableTools],
      excludeTools: [...(excludeTools ?? []), ...cli.excludeTools],
      detectTables: !cli.noDetect && (detectTables ?? true),
    },
  };
}
