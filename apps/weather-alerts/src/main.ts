#!/usr/bin/env node
import { configErrorVariable } from '@s2sp/core/options';
import type { BodyStore } from '@s2sp/core/store';
/**
 * The weather-alerts entry point: `node dist/main.js [--stdio] [--replay]`, configured by
 * environment variables (see config.ts and README.md). MCP on Streamable HTTP at /mcp (or on
 * stdio), the S2SP data plane at /s2sp/data/. Everything it prints goes to standard error, so that
 * standard output stays reserved for MCP in stdio mode.
 */
import { createConsoleLogger } from '@s2sp/server';
import { startTelemetryFromEnv, stopOnSignals } from '@s2sp/server/node';
import { loadConfig, USAGE } from './config.js';
import { createRedisStore } from './redis-store.js';
import { type NwsReplayServer, startNwsReplayServer } from './replay/replay-server.js';
import { createWeatherServer } from './weather-server.js';

const NAME = 'weather-alerts';

function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (error) {
    if (configErrorVariable(error) !== undefined) fail(error);
    throw error;
  }
  if (config.help) {
    process.stderr.write(USAGE);
    return;
  }
  const telemetry = await startTelemetryFromEnv({ serviceName: NAME });
  const logger = createConsoleLogger({ level: config.logLevel, name: NAME });
  for (const slip of config.misspelt) logger.warn(slip.message);

  let replay: NwsReplayServer | undefined;
  let nwsBaseUrl = config.nwsBaseUrl;
  if (config.replay) {
    replay = await startNwsReplayServer(
      config.fixturesDir === undefined ? {} : { fixturesDir: config.fixturesDir },
    );
    if (process.env.NWS_BASE_URL?.trim()) {
      logger.warn('replay mode: NWS_BASE_URL is ignored', { replay: replay.url });
    }
    nwsBaseUrl = replay.url;
    logger.info('replaying recorded NWS responses (offline)', {
      url: replay.url,
      alerts: replay.fixtures.alerts.length,
    });
  }

  let store: BodyStore | undefined;
  if (config.redisUrl)
    store = await createRedisStore({
      url: config.redisUrl,
      keyPrefix: config.redisPrefix,
      owner: NAME,
      logger,
    });

  const server = createWeatherServer({
    logger,
    nws: {
      baseUrl: nwsBaseUrl,
      userAgent: config.nwsUserAgent,
      timeoutMs: config.nwsTimeoutMs,
      cacheTtlMs: config.nwsCacheTtlMs,
    },
    ttlSeconds: config.ttlSeconds,
    retryGraceMs: config.retryGraceMs,
    ...(config.publicUrl && { publicUrl: config.publicUrl }),
    ...(store && { store }),
    ...(config.slop && { slop: config.slop }),
    edge: config.edge,
  });
  // With stdio, MCP is on stdin/stdout only: HTTP serves just the data plane.
  const listening = await server.listen({
    port: config.port,
    host: config.host,
    dataPlaneOnly: config.stdio,
  });

  // SIGTERM drains: running redemptions and tool calls finish (S2SP_SHUTDOWN_GRACE_MS), new
  // requests get 503; Redis keeps its entries for the other replicas.
  const stop = stopOnSignals(
    async () => {
      await server.shutdown();
      await store?.close();
      await replay?.close();
      await telemetry?.shutdown();
    },
    { logger },
  );

  if (config.stdio) {
    await server.connectStdio();
    // The MCP client owns a stdio server's lifetime: when it closes our input, shut down rather
    // than keep the HTTP listener (and the process) alive.
    process.stdin.once('end', stop);
  }

  // One stable line with the real addresses (PORT=0 picks a free port), whatever the log level,
  // so that people and scripts can find the server.
  if (config.logLevel !== 'silent') {
    const mcp = config.stdio ? 'stdio' : listening.mcpUrl;
    const dataPlane = `${config.publicUrl ?? listening.url}/s2sp/data/`;
    process.stderr.write(
      `${NAME}: ready mcp=${mcp} data_plane=${dataPlane} nws=${nwsBaseUrl}${replay ? ' (replay)' : ''}\n`,
    );
  }
}

main().catch(fail);
