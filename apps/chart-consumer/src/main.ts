#!/usr/bin/env node
/**
 * The chart consumer's entry point: `node dist/main.js [--stdio]`, configured by environment
 * variables (see config.ts). MCP on Streamable HTTP at /mcp (or stdio), charts at /charts.
 */
import { createConsoleLogger } from '@s2sp/server';
import { createChartServer } from './chart-server.js';
import { loadConfig, USAGE } from './config.js';

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
  const telemetry = await startTelemetry(process.env.OTEL_SERVICE_NAME ?? 'chart-consumer');
  const logger = createConsoleLogger({ level: config.logLevel, name: 'chart-consumer' });
  if (!config.allowedOrigins && config.destinations === 'any') {
    logger.warn(
      'S2SP_CONSUMER_DESTINATIONS=any and no S2SP_ALLOWED_ORIGINS: draw_chart will fetch from any resource_url an agent passes, loopback and private addresses included; development only',
    );
  } else if (!config.allowedOrigins) {
    logger.info(
      'S2SP_ALLOWED_ORIGINS is not set: draw_chart fetches only from public internet addresses; list your resource servers (loopback ones too) in S2SP_ALLOWED_ORIGINS',
    );
  }
  const chart = createChartServer({
    logger,
    ...(config.publicUrl && { publicUrl: config.publicUrl }),
    ...(config.allowedOrigins && { allowedOrigins: config.allowedOrigins }),
    maxConcurrentRenders: config.maxConcurrentRenders,
    fetch: {
      destinations: config.destinations,
      maxConcurrentFetches: config.maxConcurrentFetches,
      ...(config.pathPrefixes && { pathPrefixes: config.pathPrefixes }),
    },
    ...(config.chartDir && { chartDir: config.chartDir }),
    ...(config.slop && { slop: config.slop }),
    edge: config.edge,
  });
  const listening = await chart.server.listen({ port: config.port, host: config.host });
  chart.setBaseUrl(listening.url);
  logger.info('charts', { url: `${config.publicUrl ?? listening.url}/charts` });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await chart.server.close();
    await telemetry?.shutdown().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
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
