#!/usr/bin/env node
/**
 * The SQL consumer's entry point: `node dist/main.js [--stdio]`, configured by environment
 * variables (see config.ts). MCP on Streamable HTTP at /mcp (or stdio), the data plane of
 * `as_table` answers at /s2sp/data.
 */
import { createConsoleLogger } from '@s2sp/server';
import { loadConfig, USAGE } from './config.js';
import { createSqlServer } from './sql-server.js';

/**
 * OpenTelemetry, when OTEL_EXPORTER_OTLP_ENDPOINT is set: the Node SDK with the OTLP exporters it
 * configures from the standard OTEL_* variables. S2SP's spans and metrics go to the application's
 * global providers, which this registers; without the variable nothing is loaded.
 */
async function startTelemetry(
  serviceName: string,
): Promise<{ shutdown(): Promise<void> } | undefined> {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({ serviceName });
  sdk.start();
  return sdk;
}

async function main(): Promise<void> {
  const config = loadConfig(process.env, process.argv.slice(2));
  if (config.help) {
    process.stdout.write(USAGE);
    return;
  }
  const telemetry = await startTelemetry(process.env.OTEL_SERVICE_NAME ?? 'sql-consumer');
  const logger = createConsoleLogger({ level: config.logLevel, name: 'sql-consumer' });
  if (!config.allowedOrigins && config.destinations === 'any') {
    logger.warn(
      'S2SP_CONSUMER_DESTINATIONS=any and no S2SP_ALLOWED_ORIGINS: query_tables will fetch from any resource_url an agent passes, loopback and private addresses included; development only',
    );
  } else if (!config.allowedOrigins) {
    logger.info(
      'S2SP_ALLOWED_ORIGINS is not set: query_tables fetches only from public internet addresses; list your resource servers (loopback ones too) in S2SP_ALLOWED_ORIGINS',
    );
  }
  const sql = createSqlServer({
    logger,
    ...(config.publicUrl && { publicUrl: config.publicUrl }),
    ...(config.allowedOrigins && { allowedOrigins: config.allowedOrigins }),
    limits: config.limits,
    fetch: {
      destinations: config.destinations,
      maxConcurrentFetches: config.maxConcurrentFetches,
      ...(config.pathPrefixes && { pathPrefixes: config.pathPrefixes }),
    },
    ...(config.slop && { slop: config.slop }),
    edge: config.edge,
  });
  const listening = await sql.server.listen({ port: config.port, host: config.host });
  logger.info('mcp', { url: listening.mcpUrl });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sql.server.close();
    await telemetry?.shutdown().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
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
