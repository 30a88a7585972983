import { describe, expect, it } from 'vitest';
import { createSubscriptions } from './subscriptions.js';

/** An upstream that records the subscriptions it is sent; `refuse` fails the next, `hold` delays each. */
function recorder() {
  const log: string[] = [];
  let refuse = false;
  let gate: Promise<void> = Promise.resolve();
  return {
    log,
    refuseNext: () => {
      refuse = true;
    },
    /** Holds every request until the returned function is called. */
    hold: () => {
      let open = () => {};
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      return open;
    },
    request: async (request: { method: string; params?: Record<string, unknown> }) => {
      await gate;
      if (refuse) {
        refuse = false;
        throw Object.assign(new Error('refused'), { code: -32603 });
      }
      log.push(`${request.method} ${String(request.params?.uri)}`);
      return {};
    },
  };
}

describe('createSubscriptions', () => {
  it('keeps a URI two holders want until the last one lets it go', async () => {
    const upstream = recorder();
    const table = createSubscriptions(upstream);
    const session = {};
    const stream = {};
    await table.subscribe(session, 'test://a');
    await table.subscribe(stream, 'test://a');
    await table.subscribe(session, 'test://a');
    expect(table.sessionsFor('test://a')).toEqual([session, stream]);
    expect(table.held()).toBe(1);
    await table.unsubscribe(session, 'test://a');
    expect(upstream.log).toEqual(['resources/subscribe test://a']);
    expect(table.sessionsFor('test://a')).toEqual([stream]);
    await table.drop(stream);
    await table.unsubscribe(stream, 'test://a');
    expect(upstream.log).toEqual([
      'resources/subscribe test://a',
      'resources/unsubscribe test://a',
    ]);
    expect(table.sessionsFor('test://a')).toEqual([]);
    expect(table.held()).toBe(0);
  });

  it('sends one subscribe for two holders that come while the upstream has not answered', async () => {
    const upstream = recorder();
    const table = createSubscriptions(upstream);
    const first = {};
    const second = {};
    const open = upstream.hold();
    const both = Promise.all([
      table.subscribe(first, 'test://a'),
      table.subscribe(second, 'test://a'),
    ]);
    open();
    await both;
    await table.unsubscribe(first, 'test://a');
    expect(upstream.log).toEqual(['resources/subscribe test://a']);
    expect(table.sessionsFor('test://a')).toEqual([second]);
  });

  it('fails every holder of a subscribe the upstream refuses, and asks again on the next', async () => {
    const upstream = recorder();
    const table = createSubscriptions(upstream);
    const first = {};
    upstream.refuseNext();
    await expect(table.subscribe(first, 'test://a')).rejects.toMatchObject({ code: -32603 });
    expect(table.sessionsFor('test://a')).toEqual([]);
    await table.unsubscribe(first, 'test://a');
    await table.subscribe(first, 'test://a');
    expect(upstream.log).toEqual(['resources/subscribe test://a']);
  });

  it('subscribes a restarted upstream to what is still wanted', async () => {
    const upstream = recorder();
    const table = createSubscriptions(upstream);
    const holder = {};
    await table.subscribe(holder, 'test://a');
    await table.subscribe(holder, 'test://b');
    await table.unsubscribe(holder, 'test://a');
    upstream.log.length = 0;
    await table.renew();
    expect(upstream.log).toEqual(['resources/subscribe test://b']);
  });
});
