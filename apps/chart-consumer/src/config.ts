import { positiveInteger } from '@s2sp/core/options';
import {
  type ConsumerEnv,
  type Env,
  loadConsumerEnv,
  loadEnv,
  loadServerEnv,
  readSwitches,
  type ServerEnv,
} from '@s2sp/server/env';
import { z } from 'zod';

/** The chart consumer's own settings, each with its variable and rule. */
const ChartSettingsSchema = z.object({
  /** Renders at once. */
  maxConcurrentRenders: positiveInteger({ max: 64 })
    .default(2)
    .meta({ env: 'CHART_MAX_CONCURRENT_RENDERS' }),
  /** Where chart pages are kept; default: memory only. */
  chartDir: z.string().optional().meta({ env: 'CHART_DIR' }),
});

/**
 * The chart consumer's settings: the server's (`loadServerEnv`), the consumer fetch settings
 * (`loadConsumerEnv`: origins `draw_chart` may fetch from, destinations, path prefixes, fetches
 * at once, retries), its own and the command line's switches.
 */
export type ChartConfig = Pick<
  ServerEnv,
  'port' | 'host' | 'publicUrl' | 'logLevel' | 'slop' | 'edge' | 'misspelt'
> &
  ConsumerEnv &
  z.output<typeof ChartSettingsSchema> & {
    /** `--stdio`: MCP on standard input and output. */
    readonly stdio: boolean;
    /** `--help` or `-h`: print usage and exit 0. */
    readonly help: boolean;
  };

/** The command-line usage, for `--help`. */
export const USAGE = `Usage: s2sp-chart-consumer [--stdio] [--help]

The S2SP chart consumer: the draw_chart tool (MCP on Streamable HTTP at /mcp, or stdio) and
the chart pages at /charts.

Options:
  --stdio    serve MCP on standard input/output (chart pages stay on HTTP, PORT)
  --help     print this help

Environment:
  PORT (default 3002), HOST, S2SP_ALLOWED_ORIGINS (origins draw_chart may fetch from, e.g.
  http://127.0.0.1:3001), S2SP_CONSUMER_DESTINATIONS (public|any), S2SP_PATH_PREFIXES,
  S2SP_MAX_CONCURRENT_FETCHES, S2SP_FETCH_RETRIES, CHART_MAX_CONCURRENT_RENDERS, S2SP_PUBLIC_URL, CHART_DIR,
  LOG_LEVEL, SLOP, SLOP_BEARER_TOKENS, SLOP_REQUIRE_SCOPES, S2SP_ALLOWED_HOSTS,
  S2SP_ALLOWED_BROWSER_ORIGINS, S2SP_AUTH_TOKENS, S2SP_BODY_TIMEOUT_MS (see README.md).
`;

/**
 * Reads the settings: the common ones of every S2SP server (`PORT`, default 3002, `HOST`,
 * `S2SP_PUBLIC_URL`, `LOG_LEVEL`, `SLOP`…; see `loadServerEnv`), the consumer fetch settings
 * (see `loadConsumerEnv`), `CHART_MAX_CONCURRENT_RENDERS` (default 2), `CHART_DIR`, `--stdio`
 * and `--help`.
 *
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConfig(env: Env, argv: readonly string[]): ChartConfig {
  const switches = readSwitches(argv, ['--stdio', '--help', '-h']);
  const { port, host, publicUrl, logLevel, slop, edge, misspelt } = loadServerEnv(env, {
    port: 3002,
    settings: [ChartSettingsSchema],
  });
  return {
    port,
    host,
    stdio: switches.has('--stdio'),
    help: switches.has('--help') || switches.has('-h'),
    publicUrl,
    ...loadConsumerEnv(env),
    ...loadEnv(ChartSettingsSchema, env),
    logLevel,
    slop,
    edge,
    misspelt,
  };
}
