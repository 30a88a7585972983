// Figure 15: load and soak, with autocannon (as a library) against a data-plane replica process
// on the memory store. Every request redeems a fresh token — 10 rows selected from a 10k-row
// table — so each one is a real single-use redemption, not a cached repeat.
//
// Minting is the expensive half: each entry holds its own copy of the 10k-row table (~0.5 MB,
// ~1.7 ms to cache on this machine), five times the cost of a redemption, and 30 s of load would
// need tens of GB of entries minted ahead. So:
// - the load figure runs in waves: the replica mints a batch of tokens (no load), then
//   autocannon sends exactly one request per token of the batch (`amount`, `setupRequest`
//   giving each request its own path), until the waves add up to the load time. Latency is
//   taken from every response across the waves; req/s is requests over time under load. The
//   mint rate is published next to it: a process doing both sustains about
//   1 / (1/mint + 1/redeem) of them per second;
// - the soak runs at a fixed rate the replica can mint for while it serves (a queue of minted
//   tokens kept ahead of autocannon), as a real server would, where every redemption follows a
//   tool call that cached its table.
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize, envNumber, SOAK } from '../src/run-mode.js';
import { dataUrl, redeem } from './support/http.js';
import { type ReplicaProcess, startReplica } from './support/replicas.js';
import { percentile } from './support/stats.js';

const ROWS = 10_000;
const CONNECTIONS = 50;
const LOAD_SECONDS = bySize(1.5, 30);
const WAVE = 2000;
const SOAK_MINUTES = envNumber('SOAK_MINUTES', 10);
const SOAK_RATE = envNumber('SOAK_RATE', 100);
const SELECTED = Array.from({ length: 10 }, (_, i) => i * 997); // 10 rows spread over the table
const BODY = JSON.stringify({ row_ids: SELECTED });

/**
 * Keeps minted tokens ahead of the load: a background loop asks the replica for a small batch
 * whenever the queue runs low (small batches keep each pause of the replica's event loop short).
 */
function tokenFeeder(replica: ReplicaProcess, low: number, batch: number) {
  const queue: string[] = [];
  const handed: string[] = [];
  let running = true;
  let starved = 0;
  const loop = (async () => {
    while (running) {
      try {
        if (queue.length < low) queue.push(...(await replica.mint(batch)));
        else await sleep(2);
      } catch {
        // The replica went away (a failed test closes it): stop quietly; starved() tells.
        running = false;
      }
    }
  })();
  return {
    queue,
    handed,
    starved: () => starved,
    fill: async (count: number) => {
      queue.push(...(await replica.mint(count)));
    },
    /** The next fresh token, or a junk one (which will 404 and fail the run) if starved. */
    next(): string {
      const token = queue.shift();
      if (token === undefined) {
        starved++;
        return 'A'.repeat(43);
      }
      handed.push(token);
      return token;
    },
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

type Feeder = ReturnType<typeof tokenFeeder>;

/** Runs autocannon with one fresh token per request; `onResponse` sees every response. */
function run(
  replica: ReplicaProcess,
  next: () => string,
  options: Partial<autocannon.Options>,
  onResponse: (status: number, ms: number) => void = () => {},
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: replica.url,
        connections: CONNECTIONS,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: BODY,
            setupRequest: (request) => ({ ...request, path: `/s2sp/data/${next()}` }),
          },
        ],
        ...options,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('response', (_client, status, _bytes, ms) => onResponse(status, ms));
  });
}

/**
 * Redeems what is left after a run — unhanded tokens, and the last ones handed out, which may
 * have been cut off in flight when autocannon stopped — so the store must then be empty.
 */
async function drain(replica: ReplicaProcess, feeder: Feeder): Promise<number> {
  const leftovers = [...feeder.queue.splice(0), ...feeder.handed.slice(-4 * CONNECTIONS)];
  for (let i = 0; i < leftovers.length; i += 50) {
    await Promise.all(
      leftovers.slice(i, i + 50).map((token) => redeem(dataUrl(replica.url, token), {})),
    );
  }
  return (await replica.stats()).stats.entries;
}

function assertClean(result: autocannon.Result, feeder: Feeder): void {
  expect(feeder.starved()).toBe(0);
  expect(result.errors).toBe(0);
  expect(result.timeouts).toBe(0);
  expect(result.resets).toBe(0);
  expect(result.non2xx).toBe(0);
  expect(result['2xx']).toBeGreaterThan(0);
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)}`;

describe('figure 15: load and soak', () => {
  it(`load: ${LOAD_SECONDS} s under load, ${CONNECTIONS} connections, a fresh token per request, 10 of ${ROWS.toLocaleString('en-US')} rows`, async () => {
    await using replica = await startReplica({
      store: 'memory',
      rows: ROWS,
      maxCacheBytes: 4 * 1024 * 1024 * 1024,
    });
    // A first response checks the request is what we think before measuring.
    const [probe] = await replica.mint(1);
    const first = await redeem(dataUrl(replica.url, probe as string), JSON.parse(BODY));
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ total_rows: 10 });

    const latencies: number[] = [];
    const statuses: Record<number, number> = {};
    const totals = { requests: 0, errors: 0, timeouts: 0, resets: 0, non2xx: 0, ok: 0 };
    let loadMs = 0;
    let mintMs = 0;
    let minted = 0;
    let waves = 0;
    let leftover: string[] = [];
    while (loadMs < LOAD_SECONDS * 1000) {
      const mintStarted = performance.now();
      const tokens = await replica.mint(WAVE);
      mintMs += performance.now() - mintStarted;
      minted += tokens.length;
      let handed = 0;
      const started = performance.now();
      const result = await run(
        replica,
        () => tokens[handed++] ?? 'A'.repeat(43), // never reached: amount = tokens.length
        { amount: tokens.length },
        (status, ms) => {
          latencies.push(ms);
          statuses[status] = (statuses[status] ?? 0) + 1;
        },
      );
      loadMs += performance.now() - started;
      waves++;
      totals.requests += result.requests.total;
      totals.errors += result.errors;
      totals.timeouts += result.timeouts;
      totals.resets += result.resets;
      totals.non2xx += result.non2xx;
      totals.ok += result['2xx'];
      leftover = leftover.concat(tokens.slice(handed));
    }
    for (const token of leftover) await redeem(dataUrl(replica.url, token));
    const left = (await replica.stats()).stats.entries;
    const reqPerSecond = latencies.length / (loadMs / 1000);
    const mintPerSecond = minted / (mintMs / 1000);
    const clean =
      totals.errors + totals.timeouts + totals.resets + totals.non2xx === 0 && totals.ok === minted;
    recordFigure({
      id: '15.1',
      title: `Load: redemptions per second under load (${(loadMs / 1000).toFixed(1)} s in ${waves} waves of ${WAVE}, ${CONNECTIONS} connections, each request a fresh token for 10 of ${ROWS.toLocaleString('en-US')} rows; memory store, one replica process)`,
      value: Math.round(reqPerSecond),
      unit: 'req/s',
    });
    recordFigure({
      id: '15.2',
      title: `Load: latency p50 / p99 / p99.9 / max (all ${latencies.length} responses)`,
      value: `${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))} / ${ms(percentile(latencies, 99.9))} / ${ms(Math.max(...latencies))}`,
      unit: 'ms',
    });
    recordFigure({
      id: '15.3',
      title: `Load: requests / errors / timeouts / resets / non-2xx (statuses ${JSON.stringify(statuses)})`,
      value: `${totals.requests} / ${totals.errors} / ${totals.timeouts} / ${totals.resets} / ${totals.non2xx}`,
      target: 'n / 0 / 0 / 0 / 0',
      met: clean,
    });
    recordFigure({
      id: '15.4',
      title: `Load: rate at which the replica cached the 10k-row table (${minted} tokens minted between waves); one process doing both sustains ≈ ${Math.round(1 / (1 / mintPerSecond + 1 / reqPerSecond))} mint+redeem/s`,
      value: Math.round(mintPerSecond),
      unit: 'tokens/s',
    });
    recordFigure({
      id: '15.5',
      title: 'Load: entries left in the store after the run',
      value: left,
      target: '0',
      met: left === 0,
    });
    expect(totals).toMatchObject({ errors: 0, timeouts: 0, resets: 0, non2xx: 0, ok: minted });
    expect(left).toBe(0);
  }, 600_000); // minting between waves takes several times the load time

  if (SOAK) {
    it(
      `soak: ${SOAK_MINUTES} min at ${SOAK_RATE} req/s → heap after GC within ±5 % of the start, store empty at the end`,
      async () => {
        await using replica = await startReplica({
          store: 'memory',
          rows: ROWS,
          maxCacheBytes: 4 * 1024 * 1024 * 1024,
          exposeGc: true,
        });
        const feeder = tokenFeeder(replica, 200, 5);
        await feeder.fill(200);
        const fixedRate = { connections: 10, overallRate: SOAK_RATE };
        // Warm up at the same rate, then measure the start with an empty store.
        assertClean(
          await run(replica, () => feeder.next(), { ...fixedRate, duration: 30 }),
          feeder,
        );
        await feeder.stop();
        expect(await drain(replica, feeder)).toBe(0);
        const start = await replica.gc();

        const soakFeeder = tokenFeeder(replica, 200, 5);
        await soakFeeder.fill(200);
        const result = await run(replica, () => soakFeeder.next(), {
          ...fixedRate,
          duration: SOAK_MINUTES * 60,
        });
        await soakFeeder.stop();
        const left = await drain(replica, soakFeeder);
        const end = await replica.gc();
        const heapDelta = ((end.heapUsed - start.heapUsed) / start.heapUsed) * 100;
        const totalStart = start.heapUsed + start.external;
        const totalEnd = end.heapUsed + end.external;
        const totalDelta = ((totalEnd - totalStart) / totalStart) * 100;
        const { latency } = result;
        const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
        recordFigure({
          id: '15.6',
          title: `Soak: ${SOAK_MINUTES} min at a fixed ${SOAK_RATE} req/s (10 connections, fresh token per request): requests / errors / timeouts / resets / non-2xx`,
          value: `${result.requests.total} / ${result.errors} / ${result.timeouts} / ${result.resets} / ${result.non2xx}`,
          target: 'n / 0 / 0 / 0 / 0',
          met:
            result.errors + result.timeouts + result.resets + result.non2xx === 0 &&
            soakFeeder.starved() === 0,
        });
        recordFigure({
          id: '15.7',
          title: 'Soak: latency p50 / p99 / p99.9 / max',
          value: `${ms(latency.p50)} / ${ms(latency.p99)} / ${ms(latency.p99_9)} / ${ms(latency.max)}`,
          unit: 'ms',
        });
        recordFigure({
          id: '15.8',
          title: `Soak: replica heap after full GC, start → end (heap + external: ${mib(totalStart)} → ${mib(totalEnd)} MiB, ${totalDelta.toFixed(1)} %)`,
          value: `${mib(start.heapUsed)} → ${mib(end.heapUsed)} MiB (${heapDelta >= 0 ? '+' : ''}${heapDelta.toFixed(1)} %)`,
          target: 'within ±5 %',
          met: Math.abs(heapDelta) <= 5,
        });
        recordFigure({
          id: '15.9',
          title: 'Soak: entries left in the store at the end',
          value: left,
          target: '0',
          met: left === 0,
        });
        assertClean(result, soakFeeder);
        expect(left).toBe(0);
        expect(Math.abs(heapDelta)).toBeLessThanOrEqual(5);
      },
      (SOAK_MINUTES * 60 + 180) * 1000,
    );
  }
});
