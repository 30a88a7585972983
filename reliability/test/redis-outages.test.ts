// Figures 7, 8 and 9: Redis fails under a running replica (a separate process on the built
// packages). Refused (killed): every call fails fast with advice and the process keeps serving.
// Hung (SIGSTOP): every redemption fails within the command timeout, and the next one after
// SIGCONT succeeds. Killed and restarted: service returns by itself, quickly, and no redemption
// that failed during the outage has used its token up. Two more figures pin down what cannot be
// promised: how long a returning Redis may wait to be noticed (the reconnect back-off), and what
// a redemption whose reply was lost looks like (it did use the token up).
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { ErrorBodySchema } from '@s2sp/core';
import {
  connectMcpClient,
  type RedisTestServer,
  startRedis,
  type TestMcpClient,
  textOf,
} from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize, SOAK } from '../src/run-mode.js';
import { type Answer, dataUrl, redeem } from './support/http.js';
import { type ReplicaProcess, startReplica } from './support/replicas.js';
import { max, percentile, since } from './support/stats.js';
import { startReplyCuttingProxy } from './support/tcp-proxy.js';

const COMMAND_TIMEOUT_MS = 1000;
const prefix = () => `rel-${randomBytes(4).toString('hex')}:`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withRedis<T>(
  args: readonly string[],
  run: (redis: RedisTestServer) => Promise<T>,
): Promise<T> {
  const redis = await startRedis({ spawn: true, args });
  try {
    return await run(redis);
  } finally {
    await redis.stop();
  }
}

async function replicaOn(redis: RedisTestServer): Promise<ReplicaProcess> {
  return startReplica({
    store: 'redis',
    redisUrl: redis.url,
    keyPrefix: prefix(),
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    connectTimeoutMs: COMMAND_TIMEOUT_MS,
  });
}

/** Runs `tasks` with at most `concurrency` in flight, keeping their results in order. */
async function pooled<T>(count: number, concurrency: number, task: (i: number) => Promise<T>) {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

function expectUnavailable(answer: Answer): void {
  expect(answer.status).toBe(503);
  const { error } = ErrorBodySchema.parse(JSON.parse(answer.body));
  expect(error.code).toBe('unavailable');
  expect(error.message).toContain('Retry the same request in a few seconds');
}

describe('figure 7: Redis refused', () => {
  const REDEMPTIONS = bySize(300, 3000);
  const TOOL_CALLS = bySize(50, 500);

  it('tool calls → isError with advice, redemptions → 503 unavailable, fast, and the replica keeps running', async () => {
    await withRedis([], async (redis) => {
      await using replica = await replicaOn(redis);
      await using agent = await connectMcpClient(replica.mcpUrl);
      // Healthy first: scripts loaded, eviction policy checked, Redis clock measured.
      expect((await agent.call('get_rows', { abstract_domains: 'kind' })).isError).toBeFalsy();
      const tokens = await replica.mint(REDEMPTIONS);
      await redis.kill('SIGKILL');

      const toolMs: number[] = [];
      const toolTexts = new Set<string>();
      for (let i = 0; i < TOOL_CALLS; i++) {
        const started = performance.now();
        const result = await agent.call('get_rows', { abstract_domains: 'kind' });
        toolMs.push(since(started));
        expect(result.isError).toBe(true);
        toolTexts.add(textOf(result));
      }
      const answers = await pooled(REDEMPTIONS, 10, (i) =>
        redeem(dataUrl(replica.url, tokens[i] as string), { row_ids: [i % 8] }),
      );
      for (const answer of answers) expectUnavailable(answer);
      const redeemMs = answers.map((answer) => answer.ms);

      // Still running and serving what does not need Redis.
      expect(replica.alive()).toBe(true);
      expect((await fetch(`${replica.url}/s2sp/health`)).status).toBe(200);
      await assertAdvice(toolTexts, agent);

      const toolP99 = percentile(toolMs, 99);
      const redeemP99 = percentile(redeemMs, 99);
      recordFigure({
        id: '7.1',
        title: `Redis refused: ${TOOL_CALLS} tool calls (MCP SDK client) answered isError with advice — p50 / p99 / max`,
        value: `${percentile(toolMs, 50).toFixed(1)} / ${toolP99.toFixed(1)} / ${max(toolMs).toFixed(1)}`,
        unit: 'ms',
        target: 'p99 < 100 ms',
        met: toolP99 < 100,
      });
      recordFigure({
        id: '7.2',
        title: `Redis refused: ${REDEMPTIONS} redemptions (10 in flight) answered 503 unavailable — p50 / p99 / max`,
        value: `${percentile(redeemMs, 50).toFixed(1)} / ${redeemP99.toFixed(1)} / ${max(redeemMs).toFixed(1)}`,
        unit: 'ms',
        target: 'p99 < 100 ms',
        met: redeemP99 < 100,
      });
      recordFigure({
        id: '7.3',
        title: 'Redis refused: replica process still running and healthy afterwards',
        value: replica.alive() ? 'yes' : 'no',
        target: 'yes',
        met: replica.alive(),
      });
      // CI machines stall; a hang would still blow far past this.
      expect(toolP99).toBeLessThan(SOAK ? 100 : 1000);
      expect(redeemP99).toBeLessThan(SOAK ? 100 : 1000);
    });
  });
});

async function assertAdvice(toolTexts: Set<string>, agent: TestMcpClient): Promise<void> {
  expect(toolTexts.size).toBe(1);
  const [text] = [...toolTexts];
  expect(text).toMatch(/^The S2SP cache is unavailable: /);
  expect(text).toContain('Retry the tool call in a few seconds, or call it with mode="sync"');
  // The advice works: sync mode needs no cache.
  const sync = await agent.call('get_rows', { abstract_domains: 'kind', mode: 'sync' });
  expect(sync.isError).toBeFalsy();
}

describe('figure 8: Redis hung (SIGSTOP)', () => {
  // Soak: 50, not more. At 100 simultaneous give-ups the slowest answer on a 2-core machine
  // reached 1101 ms in one of two runs: 100 timers firing in the same millisecond, then 100
  // error responses written and read one after another, measured from the client.
  const IN_FLIGHT = bySize(20, 50);

  it(`every redemption fails within the command timeout (${COMMAND_TIMEOUT_MS} ms) + 10 %; after SIGCONT the next one succeeds`, async () => {
    await withRedis([], async (redis) => {
      await using replica = await replicaOn(redis);
      const tokens = await replica.mint(IN_FLIGHT);
      // Any redemption measures the Redis clock; an unknown token is enough.
      expect((await redeem(dataUrl(replica.url, 'A'.repeat(43)))).status).toBe(404);

      await redis.kill('SIGSTOP');
      let frozen: Answer[];
      let sigcont = 0;
      try {
        // Two waves of concurrent redemptions while Redis is frozen: their commands sit in
        // Redis's socket buffer; the store must give up on each in time.
        const first = await Promise.all(tokens.map((t) => redeem(dataUrl(replica.url, t))));
        const second = await Promise.all(tokens.map((t) => redeem(dataUrl(replica.url, t))));
        frozen = [...first, ...second];
      } finally {
        await redis.kill('SIGCONT');
        sigcont = performance.now();
      }
      // Redis now runs the abandoned takes, finds their deadlines passed and changes nothing.
      const next = await redeem(dataUrl(replica.url, tokens[0] as string), { row_ids: [1] });
      const recoveredMs = since(sigcont);
      const rest = await Promise.all(
        tokens.slice(1).map((t) => redeem(dataUrl(replica.url, t), { row_ids: [2] })),
      );

      for (const answer of frozen) expectUnavailable(answer);
      const frozenMs = frozen.map((answer) => answer.ms);
      const limit = COMMAND_TIMEOUT_MS * 1.1;
      recordFigure({
        id: '8.1',
        title: `Redis frozen: ${frozen.length} redemptions (2 waves of ${IN_FLIGHT} concurrent) answered 503 — fastest / p50 / slowest`,
        value: `${Math.min(...frozenMs).toFixed(0)} / ${percentile(frozenMs, 50).toFixed(0)} / ${max(frozenMs).toFixed(0)}`,
        unit: 'ms',
        target: `every one ≤ ${limit} ms`,
        met: max(frozenMs) <= limit,
      });
      recordFigure({
        id: '8.2',
        title:
          'After SIGCONT: the next redemption (of a token whose redemptions failed while frozen) — status, time',
        value: `${next.status}, ${recoveredMs.toFixed(0)} ms`,
        target: '200',
        met: next.status === 200,
      });
      recordFigure({
        id: '8.3',
        title: 'Tokens whose redemptions failed while frozen, redeemed afterwards with 200',
        value: `${rest.filter((a) => a.status === 200).length + (next.status === 200 ? 1 : 0)}/${IN_FLIGHT}`,
        target: `${IN_FLIGHT}/${IN_FLIGHT}`,
        met: next.status === 200 && rest.every((a) => a.status === 200),
      });
      expect(max(frozenMs)).toBeLessThanOrEqual(SOAK ? limit : COMMAND_TIMEOUT_MS * 2);
      expect(next.status).toBe(200);
      expect(rest.map((a) => a.status)).toEqual(Array(IN_FLIGHT - 1).fill(200));
    });
  });
});

describe('figure 9: recovery after Redis SIGKILL and restart', () => {
  // Outage lengths: the client's reconnect back-off grows with the outage (to 2 s at most).
  const OUTAGES_MS = bySize([1000], [1000, 3000, 10_000, 30_000]);
  const PROBES = 400;

  it('first success within 2 s of the restart; a redemption that failed during the outage never consumed its token', async () => {
    // Append-only file with fsync on every write: entries cached before the crash survive it.
    await withRedis(['--appendonly', 'yes', '--appendfsync', 'always'], async (redis) => {
      await using replica = await replicaOn(redis);
      const recoveries: number[] = [];
      let failedThenServed = 0;
      let failedDuringOutage = 0;
      for (const outageMs of OUTAGES_MS) {
        const [target, ...probes] = await replica.mint(PROBES + 1);
        await redis.kill('SIGKILL');
        // The target's redemptions fail while Redis is down…
        const during = [
          await redeem(dataUrl(replica.url, target as string)),
          await redeem(dataUrl(replica.url, target as string), { row_ids: [0] }),
        ];
        for (const answer of during) expectUnavailable(answer);
        await sleep(outageMs);
        await redis.restart();
        const restarted = performance.now();
        // Probe with fresh tokens every 20 ms until one is served.
        const failedProbes: string[] = [];
        let recovered: number | undefined;
        for (const probe of probes) {
          const answer = await redeem(dataUrl(replica.url, probe));
          if (answer.status === 200) {
            recovered = since(restarted);
            break;
          }
          expectUnavailable(answer);
          failedProbes.push(probe);
          await sleep(20);
        }
        expect(recovered, 'no redemption succeeded after the restart').toBeDefined();
        recoveries.push(recovered as number);
        // …and later the target is served exactly once, as is every probe that failed.
        const after = await redeem(dataUrl(replica.url, target as string));
        const again = await redeem(dataUrl(replica.url, target as string));
        expect(after.status).toBe(200);
        expect(again.status).toBe(404);
        const probesAfter = await Promise.all(
          failedProbes.map((probe) => redeem(dataUrl(replica.url, probe))),
        );
        expect(probesAfter.map((a) => a.status)).toEqual(failedProbes.map(() => 200));
        failedDuringOutage += 1 + failedProbes.length;
        failedThenServed += (after.status === 200 ? 1 : 0) + probesAfter.length;
      }
      const worst = max(recoveries);
      recordFigure({
        id: '9.1',
        title: `First successful redemption after Redis restarted (outages of ${OUTAGES_MS.map((ms) => `${ms / 1000} s`).join(', ')}) — per outage`,
        value: recoveries.map((ms) => ms.toFixed(0)).join(', '),
        unit: 'ms',
        target: '≤ 2000 ms',
        met: worst <= 2000,
      });
      recordFigure({
        id: '9.2',
        title:
          'Tokens whose redemption failed during the outage, redeemed afterwards exactly once (200, then 404)',
        value: `${failedThenServed}/${failedDuringOutage}`,
        target: `${failedDuringOutage}/${failedDuringOutage}`,
        met: failedThenServed === failedDuringOutage,
      });
      expect(worst).toBeLessThanOrEqual(SOAK ? 2000 : 5000);
    });
  });
});

describe('figure 9, continued: what recovery cannot promise', () => {
  it('a Redis that returns lost its reply: the redemption answers 503, the token is used up, the retry gets 404', async () => {
    await withRedis([], async (redis) => {
      await using proxy = await startReplyCuttingProxy(redis.port);
      await using replica = await startReplica({
        store: 'redis',
        redisUrl: `redis://127.0.0.1:${proxy.port}`,
        keyPrefix: prefix(),
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
        connectTimeoutMs: COMMAND_TIMEOUT_MS,
      });
      const [token] = await replica.mint(1);
      // Any redemption measures the Redis clock first, so the next command is the take itself.
      expect((await redeem(dataUrl(replica.url, 'A'.repeat(43)))).status).toBe(404);
      proxy.loseNextReplyTo('EVALSHA');
      const lost = await redeem(dataUrl(replica.url, token as string));
      expect(proxy.dropped()).toBe(1);
      expect(lost.status).toBe(503);
      const { message } = ErrorBodySchema.parse(JSON.parse(lost.body)).error;
      // The client retries, as the 503 tells it to, once the replica has reconnected.
      let retry = lost;
      for (let i = 0; i < 100 && retry.status === 503; i++) {
        await sleep(50);
        retry = await redeem(dataUrl(replica.url, token as string));
      }
      recordFigure({
        id: '9.4',
        title:
          'Redemption whose Redis reply was lost on the way back (the take ran): first answer, then the client’s retry',
        value: `${lost.status}, then ${retry.status}`,
        target: '503, then 404 (never served twice; the server does not retry the take)',
        met: lost.status === 503 && retry.status === 404,
      });
      // Neither "was not used up" nor "still works": the take ran, and a Redis restarted without
      // persistence has lost every entry anyway.
      const promisesUnused = message.includes('was not used up') || message.includes('still works');
      recordFigure({
        id: '9.5',
        title:
          'The 503 of that lost-reply redemption does not promise the client an unused or working resource_url (it was used)',
        value: promisesUnused ? 'promises unused' : 'does not promise',
        target: 'does not promise',
        met: !promisesUnused,
      });
      expect(retry.status).toBe(404);
      expect(promisesUnused, message).toBe(false);
    });
  });

  if (SOAK) {
    it('the reconnect back-off bounds how long a returning Redis waits to be noticed', async () => {
      await withRedis(['--appendonly', 'yes', '--appendfsync', 'always'], async (redis) => {
        await using replica = await replicaOn(redis);
        const [token] = await replica.mint(1);
        await redis.kill('SIGKILL');
        // Stand in for Redis on its port: accept each reconnect attempt, note when, hang up.
        const attempts: number[] = [];
        const standIn = createServer((socket) => {
          attempts.push(performance.now());
          socket.destroy();
        });
        standIn.listen(redis.port, '127.0.0.1');
        await once(standIn, 'listening');
        try {
          const deadline = Date.now() + 60_000;
          while (attempts.length < 11 && Date.now() < deadline) await sleep(50);
        } finally {
          await new Promise<void>((resolve) => standIn.close(() => resolve()));
        }
        await redis.restart();
        let after = await redeem(dataUrl(replica.url, token as string));
        for (let i = 0; i < 100 && after.status === 503; i++) {
          await sleep(50);
          after = await redeem(dataUrl(replica.url, token as string));
        }
        expect(after.status).toBe(200);
        const gaps = attempts.slice(1).map((at, i) => at - (attempts[i] as number));
        const atCap = gaps.slice(-4);
        const worst = max(atCap);
        recordFigure({
          id: '9.3',
          title: `Gaps between a replica’s reconnect attempts while Redis is down (all ${gaps.length}; a Redis back just after one attempt is noticed only at the next; cache-redis owned-client.ts reconnectDelay caps at 1000 ms + up to 100 ms of jitter)`,
          value: gaps.map((gap) => gap.toFixed(0)).join(', '),
          unit: 'ms',
          target: 'largest < 2000 ms, so that figure 9.1’s 2 s holds for any restart moment',
          met: worst < 2000,
        });
        expect(gaps.length).toBeGreaterThanOrEqual(10);
        expect(worst).toBeLessThan(2000);
      });
    }, 120_000);
  }
});
