import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { createConcurrencyLimit } from './concurrency-limit.js';

const code = (error: unknown) => (S2SPError.isInstance(error) ? error.code : String(error));

describe('createConcurrencyLimit', () => {
  it('runs at most `concurrency` tasks, queues `queue` more and refuses the rest at once', async () => {
    const limit = createConcurrencyLimit({ concurrency: 2, queue: 3, what: 'renders' });
    let running = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const task = () =>
      limit.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return 'done';
      });
    const results = Array.from({ length: 10 }, () => task().catch(code));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(limit.active).toBe(2);
    expect(limit.waiting).toBe(3);
    while (gates.length > 0 || limit.active > 0) {
      gates.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await Promise.all(results)).toEqual([
      ...Array(5).fill('done'),
      ...Array(5).fill('unavailable'),
    ]);
    expect(peak).toBe(2);
    expect(limit.active).toBe(0);
  });

  it('releases its slot when a task fails', async () => {
    const limit = createConcurrencyLimit({ concurrency: 1, what: 'fetches' });
    await expect(limit.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await limit.run(() => 1)).toBe(1);
  });

  it('refuses bad settings with invalid_config', () => {
    expect(code(catching(() => createConcurrencyLimit({ concurrency: 0, what: 'x' })))).toBe(
      'invalid_config',
    );
    expect(
      code(catching(() => createConcurrencyLimit({ concurrency: 1, queue: -1, what: 'x' }))),
    ).toBe('invalid_config');
  });
});

function catching(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createClientConcurrencyLimit', () => {
  it('gives each client its own slots and forgets an idle client', async () => {
    const { createClientConcurrencyLimit } = await import('./concurrency-limit.js');
    const limit = createClientConcurrencyLimit({ concurrency: 2, what: 'calls of this client' });
    const gates: (() => void)[] = [];
    const hold = (client: string) =>
      limit.run(client, () => new Promise<void>((resolve) => gates.push(resolve)));
    const held = [hold('a'), hold('a')];
    const refused = await hold('a').catch((error: unknown) => error);
    expect(code(refused)).toBe('unavailable');
    expect((refused as Error).message).toContain('2 calls of this client are running');
    // Another client is not affected.
    const other = hold('b');
    expect(limit.active('a')).toBe(2);
    expect(limit.active('b')).toBe(1);
    for (const gate of gates) gate();
    await Promise.all([...held, other]);
    expect(limit.active('a')).toBe(0);
  });

  it('refuses a concurrency that is not a positive integer', async () => {
    const { createClientConcurrencyLimit } = await import('./concurrency-limit.js');
    let thrown: unknown;
    try {
      createClientConcurrencyLimit({ concurrency: 0, what: 'x' });
    } catch (error) {
      thrown = error;
    }
    expect(code(thrown)).toBe('invalid_config');
  });
});

/**
 * Tasks that start when their limit says and end when the test says: what started, in order,
 * and how each ended (its name, or the error's code).
 */
function tasks(limit: import('./concurrency-limit.js').ClientConcurrencyLimit) {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const ended = new Map<string, Promise<string>>();
  return {
    started,
    submit(client: string, name: string, signal?: AbortSignal) {
      const result = limit
        .run(
          client,
          () =>
            new Promise<string>((resolve) => {
              started.push(name);
              gates.set(name, () => resolve(name));
            }),
          signal && { signal },
        )
        .catch(code);
      ended.set(name, result);
      return result;
    },
    /** Ends a running task and lets the limit hand its slot on. */
    async finish(name: string) {
      const gate = gates.get(name);
      if (!gate) throw new Error(`${name} is not running`);
      gate();
      await ended.get(name);
      await settle();
    },
    outcome: (name: string) => ended.get(name),
  };
}

/** Lets every promise the limit resolved run its continuation (no clock involved). */
async function settle() {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('createClientConcurrencyLimit with shared slots', () => {
  it('hands a freed slot to the waiting clients in turn, not in arrival order', async () => {
    const { createClientConcurrencyLimit } = await import('./concurrency-limit.js');
    const limit = createClientConcurrencyLimit({
      concurrency: 1,
      queue: 5,
      what: 'queries of this client',
      shared: { concurrency: 1, queue: 10, what: 'queries' },
    });
    const run = tasks(limit);
    for (const [client, name] of [
      ['a', 'a1'],
      ['a', 'a2'],
      ['a', 'a3'],
      ['b', 'b1'],
      ['b', 'b2'],
      ['c', 'c1'],
    ] as const)
      run.submit(client, name);
    await settle();
    expect([run.started, limit.running, limit.waiting]).toEqual([['a1'], 1, 5]);
    for (const name of ['a1', 'a2', 'b1', 'c1', 'a3']) await run.finish(name);
    // First in, first out would have been a1 a2 a3 b1 b2 c1: c waited behind all of a's and b's.
    expect(run.started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2']);
    await run.finish('b2');
    expect([limit.running, limit.waiting, limit.active('a')]).toEqual([0, 0, 0]);
  });

  it('gives a client arriving at a full queue the place of the client that holds most of it', async () => {
    const { createClientConcurrencyLimit } = await import('./concurrency-limit.js');
    const limit = createClientConcurrencyLimit({
      concurrency: 1,
      queue: 4,
      what: 'queries of this client',
      shared: { concurrency: 1, queue: 3, what: 'queries' },
    });
    const run = tasks(limit);
    for (const name of ['a1', 'a2', 'a3', 'a4']) run.submit('a', name);
    await settle();
    // a runs one and fills the shared queue with three.
    expect([run.started, limit.active('a')]).toEqual([['a1'], 4]);
    run.submit('b', 'b1');
    // b takes a's newest place: a4 is refused, not b.
    expect(await run.outcome('a4')).toBe('unavailable');
    expect(limit.active('b')).toBe(1);
    // c, with nothing waiting either, takes another of a's (a has 2 waiting, c would have 1).
    run.submit('c', 'c1');
    expect(await run.outcome('a3')).toBe('unavailable');
    // Now a holds one waiting place as b and c do: d is refused, and nobody's place moves.
    expect(await run.submit('d', 'd1')).toBe('unavailable');
    for (const name of ['a1', 'a2', 'b1', 'c1']) await run.finish(name);
    expect(run.started).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(await Promise.all(['a1', 'a2', 'b1', 'c1'].map(run.outcome))).toEqual([
      'a1',
      'a2',
      'b1',
      'c1',
    ]);
  });

  it('keeps each client to its own slots while shared ones are free, and lets the next client in', async () => {
    const { createClientConcurrencyLimit } = await import('./concurrency-limit.js');
    const limit = createClientConcurrencyLimit({
      concurrency: 1,
      queue: 2,
      what: 'queries of this client',
      shared: { concurrency: 2, queue: 8, what: 'queries' },
    });
    const run = tasks(limit);
    run.submit('a', 'a1');
    run.submit('a', 'a2');
    run.submit('b', 'b1');
    await settle();
    expect(run.started).toEqual(['a1', 'b1']);
    // a's own limit is 1 running and 2 waiting: its fourth is refused, for a only.
    run.submit('a', 'a3');
    expect(await run.submit('a', 'a4')).toBe('unavailable');
    await run.finish('b1');
    // The freed slot cannot go to a (its one slot is taken): it stays free for the next client.
    expect(run.started).toEqual(['a1', 'b1']);
    run.submit('c', 'c1');
    await settle();
    expect(run.started).toEqual(['a1', 'b1', 'c1']);
    await run.finish('a1');
    await run.finish('a2');
    await run.finish('c1');
    await run.finish('a3');
    expect(run.started).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('takes a waiting task out of the queue when its signal aborts', async () => {
    const { createClientConcurrencyLimit } = await import('./concurrency-limit.js');
    const limit = createClientConcurrencyLimit({
      concurrency: 1,
      what: 'queries of this client',
      shared: { concurrency: 1, queue: 1, what: 'queries' },
    });
    const run = tasks(limit);
    run.submit('a', 'a1');
    const cancel = new AbortController();
    run.submit('b', 'b1', cancel.signal);
    expect(await run.submit('c', 'c1')).toBe('unavailable');
    cancel.abort();
    expect(await run.outcome('b1')).toBe('unavailable');
    expect(limit.active('b')).toBe(0);
    // b's place is free again.
    run.submit('c', 'c2');
    await run.finish('a1');
    expect(run.started).toEqual(['a1', 'c2']);
    await run.finish('c2');
  });

  it('refuses shared settings that are not positive integers', async () => {
    const { createClientConcurrencyLimit } = await import('./concurrency-limit.js');
    expect(
      code(
        catching(() =>
          createClientConcurrencyLimit({
            concurrency: 1,
            what: 'x',
            shared: { concurrency: 0, what: 'y' },
          }),
        ),
      ),
    ).toBe('invalid_config');
    expect(
      code(
        catching(() =>
          createClientConcurrencyLimit({
            concurrency: 1,
            what: 'x',
            shared: { concurrency: 2, queue: -1, what: 'y' },
          }),
        ),
      ),
    ).toBe('invalid_config');
  });
});
