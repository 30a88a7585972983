import { afterEach, describe, expect, it } from 'vitest';
import { stopOnSignals } from './stop-on-signals.js';

// SIGUSR2, not SIGTERM: the listeners stay on this test process, which must not stop on a real
// SIGTERM the way the helper makes a program stop.
const SIGNAL = 'SIGUSR2';

afterEach(() => {
  process.removeAllListeners(SIGNAL);
});

/** stopOnSignals on SIGNAL with a stop that waits for `finish()`, counting stops and exits. */
function slowStop(repeatWindowMs?: number) {
  const state = { exits: [] as number[], stops: 0, finish: () => {} };
  const stopDone = new Promise<void>((resolve) => {
    state.finish = resolve;
  });
  stopOnSignals(
    async () => {
      state.stops++;
      await stopDone;
    },
    {
      signals: [SIGNAL],
      exit: (code) => state.exits.push(code),
      ...(repeatWindowMs !== undefined && { repeatWindowMs }),
    },
  );
  return state;
}

describe('stopOnSignals', () => {
  it('runs stop once on the first signal, then exits 0; a second signal exits 1 at once', async () => {
    const state = slowStop(0);
    process.emit(SIGNAL, SIGNAL);
    expect(state.stops).toBe(1);
    expect(state.exits).toEqual([]);
    process.emit(SIGNAL, SIGNAL);
    expect(state.stops).toBe(1);
    expect(state.exits).toEqual([1]);
    state.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.exits).toEqual([1, 0]);
  });

  it('takes the same signal relayed at once (a Ctrl-C under pnpm dev) as one: exits 0 after stop', async () => {
    const state = slowStop();
    // The terminal's SIGINT to the process group, then the runner's forwarded copy.
    process.emit(SIGNAL, SIGNAL);
    process.emit(SIGNAL, SIGNAL);
    expect(state.stops).toBe(1);
    expect(state.exits).toEqual([]);
    state.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.exits).toEqual([0]);
  });

  it('exits 1 when stop fails, and the returned function stops the same way once', async () => {
    const exits: number[] = [];
    let stops = 0;
    const stop = stopOnSignals(
      async () => {
        stops++;
        throw new Error('store gone');
      },
      { signals: [SIGNAL], exit: (code) => exits.push(code) },
    );
    await stop();
    await stop();
    expect(stops).toBe(1);
    expect(exits).toEqual([1]);
  });
});
