// Figure 34: a replica is stopped in the middle of a load of redemptions. Two replica processes
// share one redis-server; a small load balancer in the test process sends every redemption to
// replica A while A takes them, and to B once A refuses a connection or answers 503 with
// Retry-After (neither served the request, so a balancer retries it). A is stopped once a third
// of the tokens are redeemed: with SIGTERM (the feature: A drains), with SIGTERM and
// shutdownGraceMs 0 (no drain), and with SIGKILL. A redemption is lost to its client when it
// failed any other way — a connection error or a truncated body. Each of those is then tried once
// more on B, which tells whether the rows are gone for good (404: A consumed the token) or the
// client could have retried.
import { randomBytes } from 'node:crypto';
import { startRedis } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';
import { dataUrl } from './support/http.js';
import { type ReplicaProcess, startReplica } from './support/replicas.js';

const ROWS = 10_000;
const TOKENS = bySize(150, 600);
const WORKERS = 24;
/** Tokens minted on A's store and never redeemed before A stops: they must outlive A. */
const UNTOUCHED = 5;

type Outcome = 'served' | 'served-after-retry' | 'failed';

interface Attempt {
  readonly outcome: 'ok' | 'retryable' | 'failed';
  readonly status?: number;
}

/** One redemption of the whole table, read to the end and checked. */
async function redeemOnce(base: string, token: string): Promise<Attempt> {
  try {
    const response = await fetch(dataUrl(base, token), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (response.status === 503 && response.headers.get('retry-after') !== null)
      return { outcome: 'retryable', status: 503 };
    if (response.status !== 200) return { outcome: 'failed', status: response.status };
    const body = JSON.parse(text) as { total_rows?: number; body?: unknown[] };
    return body.total_rows === ROWS && body.body?.length === ROWS
      ? { outcome: 'ok', status: 200 }
      : { outcome: 'failed', status: 200 };
  } catch (error) {
    // Refused: the connection never opened, so nothing was sent and a balancer retries it.
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return code === 'ECONNREFUSED' ? { outcome: 'retryable' } : { outcome: 'failed' };
  }
}

interface LoadResult {
  readonly served: number;
  readonly servedAfterRetry: number;
  /** Lost to the client: a connection error or a truncated body (not a refused connection). */
  readonly failed: number;
  /** Failed redemptions whose token B still served on a retry. */
  readonly recovered: number;
  /** Failed redemptions whose token was gone: rows consumed and never delivered. */
  readonly consumed: number;
  /** Redemptions answered by A after the signal (the ones it let finish). */
  readonly finishedOnAAfterSignal: number;
  /** ms from the signal until A exited. */
  readonly exitMs: number;
  /** Untouched tokens B served after A was gone. */
  readonly survivors: number;
}

async function runLoad(
  a: ReplicaProcess,
  b: ReplicaProcess,
  signal: NodeJS.Signals,
): Promise<LoadResult> {
  const tokens = await b.mint(TOKENS);
  const untouched = await a.mint(UNTOUCHED);
  let next = 0;
  let completed = 0;
  let aDown = false;
  let signalled = false;
  let finishedOnAAfterSignal = 0;
  let stopped: Promise<number> | undefined;
  const outcomes: Outcome[] = [];
  const failedTokens: string[] = [];

  const stopA = () => {
    const started = performance.now();
    signalled = true;
    stopped = a.kill(signal).then(() => performance.now() - started);
  };

  const worker = async () => {
    while (next < tokens.length) {
      const token = tokens[next++] as string;
      let outcome: Outcome;
      const onA = !aDown;
      const first = await redeemOnce(onA ? a.url : b.url, token);
      if (first.outcome === 'ok') {
        outcome = 'served';
        if (onA && signalled) finishedOnAAfterSignal++;
      } else if (first.outcome === 'retryable' && onA) {
        aDown = true;
        const second = await redeemOnce(b.url, token);
        outcome = second.outcome === 'ok' ? 'served-after-retry' : 'failed';
      } else {
        outcome = 'failed';
      }
      if (outcome === 'failed') failedTokens.push(token);
      outcomes.push(outcome);
      completed++;
      if (!signalled && completed >= Math.floor(tokens.length / 3)) stopA();
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  const exitMs = await (stopped ?? Promise.resolve(Number.NaN));
  expect(a.alive()).toBe(false);

  let recovered = 0;
  let consumed = 0;
  for (const token of failedTokens) {
    const again = await redeemOnce(b.url, token);
    if (again.outcome === 'ok') recovered++;
    else if (again.status === 404) consumed++;
  }
  let survivors = 0;
  for (const token of untouched) if ((await redeemOnce(b.url, token)).outcome === 'ok') survivors++;
  return {
    served: outcomes.filter((o) => o === 'served').length,
    servedAfterRetry: outcomes.filter((o) => o === 'served-after-retry').length,
    failed: failedTokens.length,
    recovered,
    consumed,
    finishedOnAAfterSignal,
    exitMs,
    survivors,
  };
}

describe('figure 34: graceful shutdown', () => {
  it(`SIGTERM to a replica under a load of ${TOKENS} redemptions loses none; without the drain, redemptions are lost`, async () => {
    await using redis = await startRedis({ spawn: true });
    const keyPrefix = `rel-${randomBytes(4).toString('hex')}:`;
    const config = { store: 'redis', redisUrl: redis.url, keyPrefix, rows: ROWS } as const;
    await using b = await startReplica(config);

    const runs: Record<string, LoadResult> = {};
    for (const [name, signal, shutdownGraceMs] of [
      ['SIGTERM', 'SIGTERM', undefined],
      ['SIGTERM, shutdownGraceMs 0', 'SIGTERM', 0],
      ['SIGKILL', 'SIGKILL', undefined],
    ] as const) {
      await using a = await startReplica({
        ...config,
        ...(shutdownGraceMs !== undefined && { shutdownGraceMs }),
      });
      runs[name] = await runLoad(a, b, signal);
    }
    const graceful = runs.SIGTERM as LoadResult;
    const noDrain = runs['SIGTERM, shutdownGraceMs 0'] as LoadResult;
    const killed = runs.SIGKILL as LoadResult;
    const show = (r: LoadResult) =>
      `${r.failed} lost (${r.recovered} served by B on a retry, ${r.consumed} consumed)`;

    recordFigure({
      id: '34.1',
      title: `Two replicas on one redis-server, ${TOKENS} redemptions of a ${ROWS}-row table by ${WORKERS} concurrent clients; replica A sent SIGTERM after a third: redemptions lost (a connection error or a truncated body) / served by A after the signal / sent on to B after A's 503 or a refused connection / A's exit after the signal / tokens minted on A and not yet redeemed that B served afterwards`,
      value: `${show(graceful)} / ${graceful.finishedOnAAfterSignal} / ${graceful.servedAfterRetry} / ${Math.round(graceful.exitMs)} ms / ${graceful.survivors}/${UNTOUCHED}`,
      target: `0 lost / — / — / < 10 000 ms (shutdownGraceMs) / ${UNTOUCHED}/${UNTOUCHED}`,
      met: graceful.failed === 0 && graceful.exitMs < 10_000 && graceful.survivors === UNTOUCHED,
    });
    recordFigure({
      id: '34.2',
      title:
        'The same load without the drain (what the feature prevents): SIGTERM with shutdownGraceMs 0 / SIGKILL — redemptions lost; untouched tokens of A served by B afterwards',
      value: `${show(noDrain)}, ${noDrain.survivors}/${UNTOUCHED} / ${show(killed)}, ${killed.survivors}/${UNTOUCHED}`,
      target: `> 0 lost each; ${UNTOUCHED}/${UNTOUCHED}`,
      met: noDrain.failed > 0 && killed.failed > 0,
    });

    expect(graceful).toMatchObject({ failed: 0, consumed: 0, survivors: UNTOUCHED });
    expect(graceful.served + graceful.servedAfterRetry).toBe(TOKENS);
    expect(graceful.exitMs).toBeLessThan(10_000);
    // The controls: the same load loses redemptions when A does not drain.
    expect(noDrain.failed).toBeGreaterThan(0);
    expect(killed.failed).toBeGreaterThan(0);
    expect(killed.survivors).toBe(UNTOUCHED);
  });
});
