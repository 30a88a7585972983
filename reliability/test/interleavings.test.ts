// Figure 2: race interleavings. fast-check's scheduler decides, run after run, in which order
// concurrent redemptions of one token start and finish inside the data plane; under every order
// it picks, exactly one request may win. The racy store (read, yield, delete) goes through the
// same property and must be caught — the scheduler does find the bad interleaving.

import { generateToken, tokenStorageKey } from '@s2sp/core';
import { type BodyStore, createMemoryStore } from '@s2sp/core/store';
import { makeStoredTable } from '@s2sp/core/testing';
import { createDataPlaneApp } from '@s2sp/server/http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';
import { createRacyMemoryStore } from './fixtures/racy-stores.mjs';

const RUNS = bySize(1000, 10_000);
const table = makeStoredTable(10);

/**
 * The store as the data plane sees it, with the start and the end of every take scheduled, and
 * `arrived` called as each take reaches the scheduler.
 */
function scheduled(store: BodyStore, s: fc.Scheduler, arrived: () => void): BodyStore {
  return {
    put: (key, value, options) => store.put(key, value, options),
    take: async (key, rowIds) => {
      const start = s.schedule(Promise.resolve(), 'take starts');
      arrived();
      await start;
      const taken = await store.take(key, rowIds);
      return s.schedule(Promise.resolve(taken), 'take returns');
    },
    stats: () => store.stats(),
    close: () => store.close(),
  };
}

/** A data-plane request body: whole table, some rows, or some columns. */
const bodyArb = fc.oneof(
  fc.constant({}),
  fc.record({ row_ids: fc.array(fc.nat({ max: 12 }), { maxLength: 4 }) }),
  fc.record({ columns: fc.subarray(['name', 'payload', 'nope']) }),
);

/**
 * Exactly one of the concurrent redemptions gets 200, the others 404, whatever the order the
 * scheduler picks.
 */
function singleWinner(makeStore: (s: fc.Scheduler) => BodyStore) {
  return fc.asyncProperty(
    fc.scheduler(),
    fc.array(bodyArb, { minLength: 2, maxLength: 12 }),
    async (s, bodies) => {
      const inner = makeStore(s);
      // The requests get to the store through uncontrolled async steps (body reading, hashing the
      // token). Releasing nothing until every one of them has arrived lets the scheduler choose
      // among all their orders, instead of the order they happened to arrive in.
      let waiting = bodies.length;
      let allArrived: () => void = () => {};
      const arrivals = new Promise<void>((resolve) => {
        allArrived = resolve;
      });
      const app = createDataPlaneApp({
        store: scheduled(inner, s, () => {
          if (--waiting === 0) allArrived();
        }),
      });
      const token = generateToken();
      await inner.put(await tokenStorageKey(token), table, { ttlMs: 60_000 });
      const responses = Promise.all(
        bodies.map(async (body) => {
          const response = await app.request(`/s2sp/data/${token}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      await arrivals;
      const statuses = await s.waitFor(responses);
      await inner.close();
      return (
        statuses.filter((status) => status === 200).length === 1 &&
        statuses.every((status) => status === 200 || status === 404)
      );
    },
  );
}

describe('figure 2: race interleavings (fast-check scheduler)', () => {
  it(`memory store: ${RUNS} scheduled interleavings → exactly one winner each`, async () => {
    const result = await fc.check(
      singleWinner(() => createMemoryStore()),
      { numRuns: RUNS },
    );
    recordFigure({
      id: '2.1',
      title: `Memory store through the data plane: scheduler runs with exactly one 200 (2–12 concurrent redemptions per run)`,
      value: `${result.failed ? result.numRuns - 1 : result.numRuns}/${RUNS}`,
      target: `${RUNS}/${RUNS}`,
      met: !result.failed,
    });
    expect(result.failed, fc.defaultReportMessage(result)).toBe(false);
  });

  it('negative control: the racy read-yield-delete store fails the same property', async () => {
    const result = await fc.check(
      singleWinner((s) => createRacyMemoryStore(() => s.schedule(Promise.resolve(), 'racy gap'))),
      { numRuns: RUNS },
    );
    recordFigure({
      id: '2.2',
      title: 'Negative control, racy read-yield-delete store: a double win found by the scheduler',
      value: result.failed
        ? `found at run ${result.numRuns}, shrunk to ${(result.counterexample?.[1] ?? []).length} requests`
        : `not found in ${RUNS} runs`,
      target: 'found',
      met: result.failed,
    });
    expect(result.failed).toBe(true);
  });
});
