#!/usr/bin/env node
/**
 * The chart consumer's entry point: `node dist/main.js [--stdio]`, configured by environment
 * variables (see config.ts). MCP on Streamable HTTP at /mcp (or stdio), charts at /charts.
 */
import { createConsoleLogger } from '@s2sp/server';
import { logConsumerReach } from '@s2sp/server/env';
import { startTelemetryFromEnv, stopOnSignals } from '@s2sp/server/node';
import { createChartServer } from './chart-server.js';
import { loadConfig, USAGE } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env, process.argv.slice(2));
  if (config.help) {
    process.stdout.write(USAGE);
    return;
  }
  const telemetry = await startTelemetryFromEnv({ serviceName: 'chart-consumer' });
  const logger = createConsoleLogger({ level: config.logLevel, name: 'chart-consumer' });
  for (const slip of config.misspelt) logger.warn(slip.message);
  logConsumerReach(logger, config, 'draw_chart');
  const chart = createChartServer({
    logger,
    ...(config.publicUrl && { publicUrl: config.publicUrl }),
    ...(config.allowedOrigins && { allowedOrigins: config.allowedOrigins }),
    maxConcurrentRenders: config.maxConcurrentRenders,
    fetch: {
      destinations: config.destinations,
      maxConcurrentFetches: config.maxConcurrentFetches,
      fetchRetries: config.fetchRetries,
      ...(config.pathPrefixes && { pathPrefixes: config.pathPrefixes }),
    },
    ...(config.chartDir && { chartDir: config.chartDir }),
    ...(config.slop && { slop: config.slop }),
    edge: config.edge,
  });
  const listening = await chart.server.listen({ port: config.port, host: config.host });
  chart.setBaseUrl(listening.url);
  logger.info('charts', { url: `${config.publicUrl ?? listening.url}/charts` });
  // SIGTERM drains: running tool calls and redemptions finish (S2SP_SHUTDOWN_GRACE_MS).
  const stop = stopOnSignals(
    async () => {
      await chart.server.shutdown();
      await telemetry?.shutdown();
    },
    { logger },
  );
  if (config.stdio) {
    await chart.server.connectStdio();
    // The MCP client owns a stdio server's lifetime: stop when it closes our input.
    process.stdin.once('end', stop);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `chart-consumer: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
