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
