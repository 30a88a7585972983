// Figure 1: single use across replicas. One token, many concurrent redemptions spread over three
// data-plane processes sharing a store: exactly one 200, every trial. The same harness run
// against a deliberately racy read-then-delete store must see more than one winner, or it could
// not have caught a broken store either.
import { randomBytes } from 'node:crypto';
import { type RedisTestServer, startRedis, startRedisCluster } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';
import { countStatuses, dataUrl, redeem } from './support/http.js';
import { type ReplicaConfig, type ReplicaProcess, startReplica } from './support/replicas.js';

const TRIALS = bySize(20, 100);
const PER_REPLICA = 50;

let redis: RedisTestServer;
let cluster: Awaited<ReturnType<typeof startRedisCluster>>;

beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedis({ spawn: true }), startRedisCluster()]);
});
afterAll(async () => {
  await Promise.all([redis?.stop(), cluster?.stop()]);
});

const prefix = () => `rel-${randomBytes(4).toString('hex')}:`;

/** Starts `count` replica processes with one config, and closes them all at the end. */
async function replicas(count: number, config: ReplicaConfig) {
  const started = await Promise.all(Array.from({ length: count }, () => startReplica(config)));
  return {
    list: started,
    [Symbol.asyncDispose]: async () => {
      await Promise.all(started.map((replica) => replica.close()));
    },
  };
}

interface RaceResult {
  /** 200s per trial. */
  readonly winners: number[];
  /** Statuses over all trials. */
  readonly statuses: Record<number, number>;
}

/**
 * Runs `trials` races: mint one token (in `minter`), then `perReplica` concurrent redemptions at
 * each replica, all at once; count the 200s. Connections are opened beforehand so the requests
 * of a trial reach the servers together instead of trickling in behind TCP handshakes.
 */
async function race(
  list: readonly ReplicaProcess[],
  minter: ReplicaProcess,
  perReplica: number,
  trials: number,
  stopWhenCaught = false,
): Promise<RaceResult> {
  await Promise.all(
    list.flatMap((replica) =>
      Array.from({ length: perReplica }, () =>
        fetch(`${replica.url}/s2sp/health`).then((r) => r.text()),
      ),
    ),
  );
  const winners: number[] = [];
  const all: { status: number }[] = [];
  for (let trial = 0; trial < trials; trial++) {
    const [token] = await minter.mint(1);
    const answers = await Promise.all(
      list.flatMap((replica) =>
        Array.from({ length: perReplica }, (_, i) =>
          // Mixed requests: whole table, one row, a few rows (the store paths differ).
          redeem(
            dataUrl(replica.url, token as string),
            i % 3 === 0 ? {} : { row_ids: i % 3 === 1 ? [i % 8] : [0, 3, 5] },
          ),
        ),
      ),
    );
    winners.push(answers.filter((a) => a.status === 200).length);
    all.push(...answers);
    // A negative control has made its point at its first double win.
    if (stopWhenCaught && (winners.at(-1) ?? 0) > 1) break;
  }
  return { winners, statuses: countStatuses(all) };
}

function caughtText({ winners }: RaceResult): string {
  const trial = winners.findIndex((w) => w > 1);
  return trial < 0
    ? `not caught in ${winners.length} trials`
    : `caught in trial ${trial + 1}, with ${winners[trial]} winners of ${3 * PER_REPLICA}`;
}

function recordRace(id: string, what: string, result: RaceResult, requests: number): void {
  const exact = result.winners.filter((w) => w === 1).length;
  recordFigure({
    id,
    title: `${what}: trials with exactly one 200 (${TRIALS} trials × ${requests} concurrent redemptions of one token)`,
    value: `${exact}/${result.winners.length}`,
    target: `${result.winners.length}/${result.winners.length}`,
    met: exact === result.winners.length,
  });
}

describe('figure 1: single use across replicas', () => {
  it('Redis: 3 data-plane processes × 50 concurrent redemptions → exactly one 200, every trial', async () => {
    await using group = await replicas(3, {
      store: 'redis',
      redisUrl: redis.url,
      keyPrefix: prefix(),
    });
    const result = await race(group.list, group.list[0] as ReplicaProcess, PER_REPLICA, TRIALS);
    recordRace('1.1', 'Redis, 3 processes × 50', result, 3 * PER_REPLICA);
    expect(result.winners).toEqual(Array(TRIALS).fill(1));
    // The losers get the protocol's 404, never an error status.
    expect(Object.keys(result.statuses).sort()).toEqual(['200', '404']);
  });

  it('memory store: 150 concurrent redemptions on one process → exactly one 200, every trial', async () => {
    await using group = await replicas(1, { store: 'memory' });
    const one = group.list[0] as ReplicaProcess;
    const result = await race(group.list, one, 3 * PER_REPLICA, TRIALS);
    recordRace('1.2', 'Memory store, 1 process × 150', result, 3 * PER_REPLICA);
    expect(result.winners).toEqual(Array(TRIALS).fill(1));
    expect(Object.keys(result.statuses).sort()).toEqual(['200', '404']);
  });

  it('Redis Cluster (3 masters): 3 processes × 50 → exactly one 200, every trial', async () => {
    await using group = await replicas(3, {
      store: 'cluster',
      clusterUrls: cluster.urls,
      keyPrefix: prefix(),
    });
    const result = await race(group.list, group.list[0] as ReplicaProcess, PER_REPLICA, TRIALS);
    recordRace('1.3', 'Redis Cluster of 3 masters, 3 processes × 50', result, 3 * PER_REPLICA);
    expect(result.winners).toEqual(Array(TRIALS).fill(1));
    expect(Object.keys(result.statuses).sort()).toEqual(['200', '404']);
  });

  it('negative control: a racy GET-then-DEL Redis store is caught with more than one 200', async () => {
    await using group = await replicas(3, {
      store: 'racy-redis',
      redisUrl: redis.url,
      keyPrefix: prefix(),
    });
    const result = await race(
      group.list,
      group.list[0] as ReplicaProcess,
      PER_REPLICA,
      TRIALS,
      true,
    );
    const caught = result.winners.filter((w) => w > 1).length;
    recordFigure({
      id: '1.4',
      title:
        'Negative control, racy GET-then-DEL store on Redis (3 processes × 50): first trial with more than one 200',
      value: caughtText(result),
      target: 'caught (> 1 winner) in some trial',
      met: caught >= 1,
    });
    expect(caught).toBeGreaterThanOrEqual(1);
  });

  it('negative control: a racy read-await-delete memory store is caught with more than one 200', async () => {
    await using group = await replicas(1, { store: 'racy-memory' });
    const one = group.list[0] as ReplicaProcess;
    const result = await race(group.list, one, 3 * PER_REPLICA, TRIALS, true);
    const caught = result.winners.filter((w) => w > 1).length;
    recordFigure({
      id: '1.5',
      title:
        'Negative control, racy read-await-delete memory store (1 process × 150): first trial with more than one 200',
      value: caughtText(result),
      target: 'caught (> 1 winner) in some trial',
      met: caught >= 1,
    });
    expect(caught).toBeGreaterThanOrEqual(1);
  });
});
