#!/usr/bin/env node
import { configErrorVariable } from '@s2sp/core/options';
/**
 * `s2sp-proxy`: S2SP in front of any MCP server. Everything it prints goes to standard error, so
 * that standard output stays reserved for MCP with `--stdio`.
 */
import type { BodyStore } from '@s2sp/core/store';
import { createConsoleLogger } from '@s2sp/server';
import { stopOnSignals } from '@s2sp/server/node';
import { USAGE } from './cli/cli-args.js';
import { type ProxyRun, readProxyRun } from './cli/proxy-run.js';
import { startFailureText } from './cli/start-failure.js';
import { createS2SPProxy } from './proxy.js';
import { PROXY_VERSION } from './version.js';

const NAME = 's2sp-proxy';

function fail(error: unknown, status = 1): never {
  process.stderr.write(`${NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(status);
}

async function main(): Promise<void> {
  let run: ProxyRun;
  try {
    run = readProxyRun(process.argv.slice(2), process.env);
  } catch (error) {
    if (configErrorVariable(error) !== undefined)
      fail(`${(error as Error).message}\nRun s2sp-proxy --help for the options.`, 2);
    throw error;
  }
  if (run.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (run.version) {
    process.stdout.write(`${PROXY_VERSION}\n`);
    return;
  }
  if (!run.upstream) fail('no upstream', 2);
  const logger = createConsoleLogger({ level: run.logLevel, name: NAME });
  for (const slip of run.misspelt) logger.warn(slip.message);

  let store: BodyStore | undefined;
  if (run.redis) {
    const { createRedisBodyStore } = await import('@s2sp/cache-redis');
    store = createRedisBodyStore({ ...run.redis, owner: NAME, logger });
  }
  const proxy = createS2SPProxy({
    ...run.options,
    upstream: run.upstream,
    logger,
    ...(store && { store }),
    ...(run.logLevel === 'silent' && { onUpstreamStderr: () => {} }),
  });

  // SIGTERM drains: running tool calls and redemptions finish (S2SP_SHUTDOWN_GRACE_MS), new
  // requests get 503; Redis keeps its entries for the other replicas.
  const stop = stopOnSignals(
    async () => {
      await proxy.shutdown().catch(() => {});
      await store?.close().catch(() => {});
    },
    { logger },
  );

  try {
    await proxy.start();
  } catch (error) {
    await store?.close().catch(() => {});
    // A setting found unusable only at start (a --state path that is not a file) is a bad option.
    // An upstream that did not start is told to the person reading this, not to a model.
    fail(startFailureText(error) ?? error, configErrorVariable(error) === undefined ? 1 : 2);
  }
  const listener = await proxy
    .listen({ port: run.port, host: run.host })
    .catch(async (error: Error) => {
      await proxy.close().catch(() => {});
      fail(error.message);
    });
  if (run.stdio) {
    await proxy.connectStdio();
    // The MCP client owns a stdio server's lifetime: when it closes our input, shut down.
    process.stdin.once('end', () => void stop());
  }
  if (run.logLevel !== 'silent') {
    process.stderr.write(
      `${NAME}: ready mcp=${run.stdio ? 'stdio' : listener.mcpUrl} data_plane=${run.options.publicUrl ?? listener.url}/s2sp/data/\n`,
    );
  }
}

main().catch((error) => fail(error));
