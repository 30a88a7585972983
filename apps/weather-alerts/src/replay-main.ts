#!/usr/bin/env node
/**
 * Runs the NWS replay server on its own: `node dist/replay-main.js`, with `PORT` (default 3090),
 * `HOST` (default 127.0.0.1) and `NWS_FIXTURES_DIR`. Point `NWS_BASE_URL` of any NWS client at the
 * printed URL to work offline.
 */
import { loadReplayConfig } from './config.js';
import { startNwsReplayServer } from './replay/replay-server.js';

async function main(): Promise<void> {
  const config = loadReplayConfig(process.env);
  const replay = await startNwsReplayServer(config);
  const { alerts, points, forecasts } = replay.fixtures;
  process.stderr.write(
    `nws-replay: ready url=${replay.url} alerts=${alerts.length} points=${points.size} forecasts=${forecasts.size}\n`,
  );
  const stop = async () => {
    await replay.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`nws-replay: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
