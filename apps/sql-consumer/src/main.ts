#!/usr/bin/env node
/**
 * The SQL consumer's entry point: `node dist/main.js [--stdio]`, configured by environment
 * variables (see config.ts). MCP on Streamable HTTP at /mcp (or stdio), the data plane of
 * `as_table` answers at /s2sp/data.
 */
import { createConsoleLogger } from '@s2sp/server';
import { logConsumerReach } from '@s2sp/server/env';
import { startTelemetryFromEnv, stopOnSignals } from '@s2sp/server/node';
import { loadConfig, USAGE } from './config.js';
import { createSqlServer } from './sql-server.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env, process.argv.slice(2));
  if (config.help) {
    process.stdout.write(USAGE);
    return;
  }
  const telemetry = await startTelemetryFromEnv({ serviceName: 'sql-consumer' });
  const logger = createConsoleLogger({ level: config.logLevel, name: 'sql-consumer' });
  for (const slip of config.misspelt) logger.warn(slip.message);
  logConsumerReach(logger, config, 'query_tables');
  const sql = createSqlServer({
    logger,
    ...(config.publicUrl && { publicUrl: config.publicUrl }),
    ...(config.allowedOrigins && { allowedOrigins: config.allowedOrigins }),
    limits: config.limits,
    fetch: {
      destinations: config.destinations,
      maxConcurrentFetches: config.maxConcurrentFetches,
      fetchRetries: config.fetchRetries,
      ...(config.pathPrefixes && { pathPrefixes: config.pathPrefixes }),
    },
    ...(config.slop && { slop: config.slop }),
    edge: config.edge,
  });
  const listening = await sql.server.listen({ port: config.port, host: config.host });
  logger.info('mcp', { url: listening.mcpUrl });
  // SIGTERM drains: running tool calls and redemptions finish (S2SP_SHUTDOWN_GRACE_MS).
  const stop = stopOnSignals(
    async () => {
      await sql.server.shutdown();
      await telemetry?.shutdown();
    },
    { logger },
  );
  if (config.stdio) {
    await sql.server.connectStdio();
    // The MCP client owns a stdio server's lifetime: stop when it closes our input.
    process.stdin.once('end', stop);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`sql-consumer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
