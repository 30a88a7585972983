/**
 * The load generator, in its own process: it sends the requests the parent asks for and reports
 * what it measured. Keeping it apart from the servers is what lets a server's share of the floor
 * mean something — the two never compete inside one event loop.
 */
import { memoryUsage } from 'node:process';
import { fetchBodyRows } from '@s2sp/core';
import { serveParent } from '../child.js';
import { runLoad } from '../http-load.js';

/** Redeems one URL as NDJSON with fetchBodyRows, counting rows, and its own memory peak. */
async function stream(url: string): Promise<Record<string, number>> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryUsage().rss);
  }, 10);
  const started = performance.now();
  let rows = 0;
  try {
    // A loopback data plane: allow-list its origin (the default refuses loopback).
    const allowedOrigins = [new URL(url).origin];
    for await (const _row of fetchBodyRows(url, {
      maxBytes: 2 ** 40,
      timeoutMs: 600_000,
      allowedOrigins,
    }))
      rows++;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, memoryUsage().rss);
  return { rows, seconds: (performance.now() - started) / 1000, base, peak };
}

serveParent(async (message) => {
  if (message.op === 'stream') return stream(message.url as string);
  if (message.op !== 'load') throw new Error(`unknown request ${String(message.op)}`);
  const paths = message.paths as string[];
  return runLoad({
    port: message.port as number,
    path: (i) => paths[i % paths.length] as string,
    body: message.body as string,
    concurrency: message.concurrency as number,
    requests: message.requests as number,
    ...(message.accept ? { accept: message.accept as string } : {}),
  });
});
