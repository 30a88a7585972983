// Figure 33: retry-safe redemption (PROTOCOL §7.10). A real data plane on a
// socket behind a loopback proxy that drops or cuts a share of the responses after the data plane
// has taken the entry — the reply lost on its way back that used to cost the rows.
// - 33.1–33.2: 10 000 redemptions through fetchBody with its default retries (an Idempotency-Key,
//   3 retries): every one completes with its own rows. The proxy faults any one redemption at
//   most 3 times (the retry budget), so the figure measures whether a retry gets the rows, not
//   the odds of four faults in a row (10^-4 per redemption at a 10 % fault rate).
// - 33.3: the same without retries (no key): every fault is a lost redemption, and its token is
//   spent (a second redemption gets 404).
// - 33.4–33.5: the reply of a keyed redemption on a Redis store is lost, Redis is SIGKILLed and
//   restarted, and the consumer retries with the same key: with an append-only file (fsync
//   always) it gets the same rows; without persistence the entry and its grace mark are gone.

import { createRedisBodyStore } from '@s2sp/cache-redis';
import { fetchBody, generateToken, S2SPError, tokenStorageKey } from '@s2sp/core';
import { type BodyStore, createMemoryStore } from '@s2sp/core/store';
import { prepareTable, serializeTable, silentLogger } from '@s2sp/server';
import { createDataPlaneApp, createS2SPEdge } from '@s2sp/server/http';
import {
  type Fault,
  type FaultProxy,
  seededRandom,
  startFaultProxy,
  startRedis,
} from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';

const REDEMPTIONS = bySize(10_000, 100_000);
/** Without retries every fault is a loss: a smaller run shows the rate (about FAULT_RATE). */
const REDEMPTIONS_WITHOUT_RETRIES = bySize(2_000, 100_000);
const CONCURRENCY = 64;
/** Generous: on a 2-core machine shared with other work the CI run takes 20 to 70 s. */
const RUN_TIMEOUT_MS = 300_000;
const FAULT_RATE = 0.1;
const RETRIES = 3;

/** The rows of redemption `n`: its own, so a mix-up between tokens would show. */
const rowsOf = (n: number) =>
  Array.from({ length: 5 }, (_, i) => ({ n, i, text: `redemption ${n} row ${i}` }));

async function servedDataPlane(store: BodyStore) {
  const listener = await createS2SPEdge().listen(
    createDataPlaneApp({ store, logger: silentLogger }),
  );
  return { port: listener.port, close: () => listener.close() };
}

/** Runs `task` for 0…count-1 with at most `concurrency` in flight. */
async function pooled(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** A proxy that faults FAULT_RATE of the requests, and any one Idempotency-Key at most RETRIES times. */
async function faultingProxy(port: number, seed: number): Promise<FaultProxy> {
  const random = seededRandom(seed);
  const faultsPerKey = new Map<string, number>();
  return startFaultProxy(port, ({ idempotencyKey }) => {
    const draw = random();
    if (draw >= FAULT_RATE) return 'pass';
    if (idempotencyKey !== undefined) {
      const faults = faultsPerKey.get(idempotencyKey) ?? 0;
      if (faults >= RETRIES) return 'pass';
      faultsPerKey.set(idempotencyKey, faults + 1);
    }
    const fault: Fault = draw < FAULT_RATE / 2 ? 'drop' : 'truncate';
    return fault;
  });
}

interface Outcome {
  readonly completed: number;
  readonly wrongRows: number;
  readonly lost: number;
  readonly lostTokens: string[];
  readonly ms: number;
}

async function redeemAll(
  store: BodyStore,
  proxy: FaultProxy,
  retries: number,
  count: number,
): Promise<Outcome> {
  let completed = 0;
  let wrongRows = 0;
  const lostTokens: string[] = [];
  const started = performance.now();
  await pooled(count, CONCURRENCY, async (n) => {
    const token = generateToken();
    await store.put(await tokenStorageKey(token), serializeTable(prepareTable(rowsOf(n))), {
      ttlMs: 60_000,
    });
    const url = `${proxy.url}/s2sp/data/${token}`;
    try {
      const { body } = await fetchBody(url, {
        allowedOrigins: [proxy.url],
        retries,
        rowIds: [0, 2, 4],
        timeoutMs: 20_000,
      });
      const expected = [0, 2, 4].map((i) => ({ _row_id: i, ...rowsOf(n)[i] }));
      if (JSON.stringify(body) === JSON.stringify(expected)) completed++;
      else wrongRows++;
    } catch (error) {
      if (!S2SPError.isInstance(error)) throw error;
      lostTokens.push(url);
    }
  });
  return {
    completed,
    wrongRows,
    lost: lostTokens.length,
    lostTokens,
    ms: performance.now() - started,
  };
}

describe('figure 33: retry-safe redemption', () => {
  it(
    `${REDEMPTIONS} redemptions through a proxy that breaks ${FAULT_RATE * 100} % of the responses after the take, with retries: none lost`,
    async () => {
      const store = createMemoryStore();
      const plane = await servedDataPlane(store);
      const proxy = await faultingProxy(plane.port, 27);
      try {
        const on = await redeemAll(store, proxy, RETRIES, REDEMPTIONS);
        const faults = proxy.counts.drop + proxy.counts.truncate;
        recordFigure({
          id: '33.1',
          title: `Redemptions through fetchBody (default: Idempotency-Key, ${RETRIES} retries with backoff) with ${faults} responses dropped (${proxy.counts.drop}) or cut short (${proxy.counts.truncate}) after the take, ${CONCURRENCY} in flight, in ${Math.round(on.ms)} ms: completed with their own rows / lost / wrong rows`,
          value: `${on.completed} / ${on.lost} / ${on.wrongRows}`,
          target: `${REDEMPTIONS} / 0 / 0`,
          met: on.completed === REDEMPTIONS && on.lost === 0 && on.wrongRows === 0,
        });
        recordFigure({
          id: '33.2',
          title:
            'Requests the data plane answered for those redemptions: first attempts + repeats of a taken entry (one per broken response)',
          value: `${REDEMPTIONS} + ${proxy.counts.pass + faults - REDEMPTIONS}`,
          target: `${REDEMPTIONS} + ${faults}`,
          met: proxy.counts.pass === REDEMPTIONS,
        });
        expect(on.lost).toBe(0);
        expect(on.wrongRows).toBe(0);
        expect(on.completed).toBe(REDEMPTIONS);
        expect(faults).toBeGreaterThan(REDEMPTIONS * FAULT_RATE * 0.8);
      } finally {
        await proxy.close();
        await plane.close();
        await store.close();
      }
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `${REDEMPTIONS_WITHOUT_RETRIES} redemptions through the same proxy without retries: every broken response is a lost redemption with its token spent`,
    async () => {
      const store = createMemoryStore();
      const plane = await servedDataPlane(store);
      const proxy = await faultingProxy(plane.port, 27);
      try {
        const off = await redeemAll(store, proxy, 0, REDEMPTIONS_WITHOUT_RETRIES);
        const faults = proxy.counts.drop + proxy.counts.truncate;
        // Every lost redemption used its token up: a second try (no fault now) gets 404.
        const checked = off.lostTokens.slice(0, 200);
        let spent = 0;
        for (const url of checked) {
          const again = await fetch(url.replace(proxy.url, `http://127.0.0.1:${plane.port}`), {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          });
          if (again.status === 404) spent++;
          await again.body?.cancel();
        }
        recordFigure({
          id: '33.3',
          title: `${REDEMPTIONS_WITHOUT_RETRIES} redemptions with retries: 0 (no Idempotency-Key, the behaviour before §7.10), ${faults} responses broken: lost / completed; of ${checked.length} lost tokens redeemed again, answered 404 (spent)`,
          value: `${off.lost} (${((100 * off.lost) / REDEMPTIONS_WITHOUT_RETRIES).toFixed(1)} %) / ${off.completed}; ${spent}/${checked.length}`,
          target: `${faults} / ${REDEMPTIONS_WITHOUT_RETRIES - faults}; ${checked.length}/${checked.length}`,
          met: off.lost === faults && spent === checked.length,
        });
        expect(off.lost).toBe(faults);
        expect(off.lost).toBeGreaterThan(0);
        expect(spent).toBe(checked.length);
      } finally {
        await proxy.close();
        await plane.close();
        await store.close();
      }
    },
    RUN_TIMEOUT_MS,
  );

  it.each([
    [
      '33.4',
      'with an append-only file (fsync always)',
      ['--appendonly', 'yes', '--appendfsync', 'always'],
      true,
    ],
    ['33.5', 'without persistence', [], false],
  ] as const)(
    '%s: a lost reply retried across a Redis SIGKILL and restart %s',
    async (id, label, args, durable) => {
      const TOKENS = bySize(20, 200);
      const redis = await startRedis({ spawn: true, args: [...args] });
      const store = createRedisBodyStore({
        url: redis.url,
        keyPrefix: 'f33:',
        commandTimeoutMs: 1000,
        connectTimeoutMs: 1000,
        logger: silentLogger,
      });
      const plane = await servedDataPlane(store);
      const proxy = await startFaultProxy(plane.port, () => 'drop');
      try {
        const redemptions = await Promise.all(
          Array.from({ length: TOKENS }, async (_, n) => {
            const token = generateToken();
            await store.put(await tokenStorageKey(token), serializeTable(prepareTable(rowsOf(n))), {
              ttlMs: 60_000,
            });
            return { n, token, key: generateToken() };
          }),
        );
        const post = (base: string, token: string, key: string) =>
          fetch(`${base}/s2sp/data/${token}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body: '{"row_ids":[1,3]}',
          });
        // Every first reply is lost after the take.
        for (const { token, key } of redemptions)
          await post(proxy.url, token, key).then(
            () => {
              throw new Error('the proxy let a reply through');
            },
            () => undefined,
          );
        expect(proxy.counts.drop).toBe(TOKENS);
        await redis.kill('SIGKILL');
        await redis.restart();
        // Wait until the store answers again (the client reconnects with back-off).
        const direct = `http://127.0.0.1:${plane.port}`;
        const deadline = Date.now() + 15_000;
        while (
          Date.now() < deadline &&
          (await store.stats().then(
            () => false,
            () => true,
          ))
        )
          await new Promise((resolve) => setTimeout(resolve, 50));
        let served = 0;
        let gone = 0;
        for (const { n, token, key } of redemptions) {
          const answer = await post(direct, token, key);
          if (answer.status === 200) {
            const { body } = (await answer.json()) as { body: unknown[] };
            const expected = [1, 3].map((i) => ({ _row_id: i, ...rowsOf(n)[i] }));
            if (JSON.stringify(body) === JSON.stringify(expected)) served++;
          } else {
            if (answer.status === 404) gone++;
            await answer.body?.cancel();
          }
        }
        recordFigure({
          id,
          title: `Keyed redemptions whose reply was lost after the take, retried with the same key after Redis was SIGKILLed and restarted ${label}: served the same rows / 404 (lost)`,
          value: `${served}/${TOKENS} / ${gone}/${TOKENS}`,
          target: durable
            ? `${TOKENS}/${TOKENS} / 0/${TOKENS}`
            : `0/${TOKENS} / ${TOKENS}/${TOKENS} (documented)`,
          met: durable ? served === TOKENS : gone === TOKENS,
        });
        if (durable) expect(served).toBe(TOKENS);
        else expect(gone).toBe(TOKENS);
      } finally {
        await proxy.close();
        await plane.close();
        await store.close();
        await redis.stop();
      }
    },
  );
});
