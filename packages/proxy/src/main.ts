#!/usr/bin/env node
/**
 * `s2sp-proxy`: S2SP in front of any MCP server. Everything it prints goes to standard error, so
 * that standard output stays reserved for MCP with `--stdio`.
 */
import { readFileSync } from 'node:fs';
import { RedisStoreSettingsSchema } from '@s2sp/cache-redis/settings';
import { optionsFromEnv } from '@s2sp/core/options';
import type { BodyStore } from '@s2sp/core/store';
import { createConsoleLogger } from '@s2sp/server';
import {
  configError,
  configErrorVariable,
  type EdgeEnvOptions,
  loadEdgeEnv,
} from '@s2sp/server/env';
import { stopOnSignals } from '@s2sp/server/node';
import { parseCliArgs, USAGE } from './cli/cli-args.js';
import { parseConfigFile } from './cli/config-file.js';
import { createS2SPProxy } from './proxy.js';
import { PROXY_VERSION } from './version.js';

const NAME = 's2sp-proxy';

function fail(error: unknown, status = 1): never {
  process.stderr.write(`${NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(status);
}

async function main(): Promise<void> {
  let options: ReturnType<typeof parseCliArgs>;
  let file: ReturnType<typeof parseConfigFile> | undefined;
  let edge: EdgeEnvOptions;
  let redisPrefixFromEnv: string | undefined;
  try {
    options = parseCliArgs(process.argv.slice(2));
    if (options.configFile) {
      let text: string;
      try {
        text = readFileSync(options.configFile, 'utf8');
      } catch (error) {
        throw configError(
          '--config',
          `cannot read ${options.configFile}: ${(error as Error).message}`,
        );
      }
      file = parseConfigFile(text, options.configFile);
    }
    // The HTTP edge, read as the servers read it; a flag wins over the file, the file over the
    // environment (S2SP_AUTH_TOKENS, S2SP_ALLOWED_HOSTS, …).
    edge = { ...loadEdgeEnv(process.env), ...file?.edge, ...options.edge };
    redisPrefixFromEnv = (
      optionsFromEnv(RedisStoreSettingsSchema, process.env, { factory: 'environment' }).options as {
        keyPrefix?: string;
      }
    ).keyPrefix;
  } catch (error) {
    if (configErrorVariable(error) !== undefined)
      fail(`${(error as Error).message}\nRun s2sp-proxy --help for the options.`, 2);
    throw error;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (options.version) {
    process.stdout.write(`${PROXY_VERSION}\n`);
    return;
  }
  if (!options.upstream) fail('no upstream', 2);
  const logger = createConsoleLogger({ level: options.logLevel, name: NAME });
  const tokenBudget = options.tokenBudget ?? file?.tokenBudget;

  let store: BodyStore | undefined;
  if (options.redisUrl) {
    const { createRedisBodyStore } = await import('@s2sp/cache-redis');
    // The prefix: the flag, else S2SP_REDIS_PREFIX (read by the same option's rule).
    const keyPrefix = options.redisPrefix ?? redisPrefixFromEnv;
    store = createRedisBodyStore({
      url: options.redisUrl,
      owner: NAME,
      logger,
      ...(keyPrefix !== undefined && { keyPrefix }),
    });
  }
  const proxy = createS2SPProxy({
    ...edge,
    ...options.limits,
    upstream: options.upstream,
    logger,
    timeoutSeconds: options.timeoutSeconds,
    tableTools: [...(file?.tableTools ?? []), ...options.tableTools],
    excludeTools: [...(file?.excludeTools ?? []), ...options.excludeTools],
    detectTables: options.detectTables && (file?.detect ?? true),
    ...(options.stateFile !== undefined && { stateFile: options.stateFile }),
    ...(options.publicUrl && { publicUrl: options.publicUrl }),
    ...(options.ttlSeconds !== undefined && { ttlSeconds: options.ttlSeconds }),
    ...(tokenBudget !== undefined && { tokenBudget }),
    ...(options.maxUpstreamResultBytes !== undefined && {
      maxUpstreamResultBytes: options.maxUpstreamResultBytes,
    }),
    ...(options.maxEntriesPerClient !== undefined && {
      maxEntriesPerClient: options.maxEntriesPerClient,
    }),
    ...(store && { store }),
    ...(options.logLevel === 'silent' && { onUpstreamStderr: () => {} }),
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
    fail(error, configErrorVariable(error) === undefined ? 1 : 2);
  }
  const listener = await proxy
    .listen({ port: options.port, host: options.host })
    .catch(async (error: Error) => {
      await proxy.close().catch(() => {});
      fail(error.message);
    });
  if (options.stdio) {
    await proxy.connectStdio();
    // The MCP client owns a stdio server's lifetime: when it closes our input, shut down.
    process.stdin.once('end', () => void stop());
  }
  if (options.logLevel !== 'silent') {
    process.stderr.write(
      `${NAME}: ready mcp=${options.stdio ? 'stdio' : listener.mcpUrl} data_plane=${options.publicUrl ?? listener.url}/s2sp/data/\n`,
    );
  }
}

main().catch((error) => fail(error));
