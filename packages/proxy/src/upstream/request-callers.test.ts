import { describe, expect, it } from 'vitest';
import type { RelayTarget } from './client-relay.js';
import { createRequestCallers } from './request-callers.js';

const target = (client: string): RelayTarget => ({
  client,
  capabilities: () => ({}),
  send: async () => ({}),
});

/** A send that stays in flight until `done` is called. */
function pending() {
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  return { send: () => finished, done: () => done() };
}

describe('createRequestCallers', () => {
  it('attributes what comes with a request to its session and its relay', async () => {
    const callers = createRequestCallers();
    const alice = {};
    const relay = target('alice');
    await callers.run(alice, relay, async () => {
      expect(callers.originOf()).toEqual({ by: 'request', session: alice });
      expect(callers.relayTargetOf('sampling/createMessage')).toBe(relay);
    });
    expect(callers.originOf()).toEqual({ by: 'unknown' });
  });

  it('assumes the only session in flight, and no session of several', async () => {
    const callers = createRequestCallers();
    const alice = {};
    const bob = {};
    const a = pending();
    const running = callers.run(alice, undefined, a.send);
    expect(callers.originOf()).toEqual({ by: 'only-caller', session: alice });
    const b = pending();
    const other = callers.run(bob, undefined, b.send);
    expect(callers.originOf()).toEqual({ by: 'unknown' });
    a.done();
    b.done();
    await Promise.all([running, other]);
    expect(callers.originOf()).toEqual({ by: 'unknown' });
  });

  it('offers an unrelated request the newest call that can reach its client, else refuses it', async () => {
    const asked: (string | undefined)[] = [];
    const callers = createRequestCallers((method, newest) => {
      asked.push(`${method} ${newest?.client}`);
      return newest;
    });
    expect(callers.relayTargetOf('roots/list')).toBeUndefined();
    const first = pending();
    const second = pending();
    const runs = [
      callers.run({}, target('alice'), first.send),
      callers.run({}, target('bob'), second.send),
    ];
    expect(callers.relayTargetOf('roots/list')?.client).toBe('bob');
    second.done();
    await runs[1];
    expect(callers.relayTargetOf('roots/list')?.client).toBe('alice');
    first.done();
    await runs[0];
    expect(asked).toEqual(['roots/list undefined', 'roots/list bob', 'roots/list alice']);
    expect(createRequestCallers().relayTargetOf('roots/list')).toBeUndefined();
  });
});
