import { silentLogger } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { createResourceHolds } from './resource-holds.js';
import { createSubscriptions } from './subscriptions.js';

/** Upstream sessions by owner, each recording the subscriptions it is sent. */
function sessions() {
  const log: string[] = [];
  const upstreamOf = (owner: string) => ({
    request: async (request: { method: string; params?: Record<string, unknown> }) => {
      log.push(`${owner} ${request.method} ${String(request.params?.uri)}`);
      return {};
    },
  });
  return { log, upstreamOf };
}

describe('createResourceHolds', () => {
  it("holds a listen stream's URIs on its owner's session until the stream lets them go", async () => {
    const { log, upstreamOf } = sessions();
    const holds = createResourceHolds({
      upstreamOf,
      canSubscribe: () => true,
      logger: silentLogger,
    });
    const release = await holds.hold('a', ['test://1', 'test://2']);
    await holds.tableOf('b').subscribe({}, 'test://1');
    expect(holds.inUse('a')).toBe(true);
    expect(log).toEqual([
      'a resources/subscribe test://1',
      'a resources/subscribe test://2',
      'b resources/subscribe test://1',
    ]);
    await release();
    expect(holds.inUse('a')).toBe(false);
    expect(log.slice(3)).toEqual([
      'a resources/unsubscribe test://1',
      'a resources/unsubscribe test://2',
    ]);
  });

  it('subscribes a restarted session again, and lets go of nothing once its session is forgotten', async () => {
    const { log, upstreamOf } = sessions();
    const holds = createResourceHolds({
      upstreamOf,
      canSubscribe: () => true,
      logger: silentLogger,
    });
    const release = await holds.hold('a', ['test://1']);
    await holds.renew('a');
    expect(log).toEqual(['a resources/subscribe test://1', 'a resources/subscribe test://1']);
    holds.forget('a');
    expect(holds.inUse('a')).toBe(false);
    await release();
    expect(log).toHaveLength(2);
  });

  it('holds nothing where the upstream cannot subscribe, and keeps one table when shared', async () => {
    const { log, upstreamOf } = sessions();
    const none = createResourceHolds({
      upstreamOf,
      canSubscribe: () => false,
      logger: silentLogger,
    });
    await (await none.hold('a', ['test://1']))();
    expect(log).toEqual([]);
    const table = createSubscriptions(upstreamOf('shared'));
    const shared = createResourceHolds({
      shared: table,
      upstreamOf,
      canSubscribe: () => true,
      logger: silentLogger,
    });
    expect(shared.tableOf('a')).toBe(table);
    expect(shared.tableOf('b')).toBe(table);
    await shared.hold('a', ['test://1']);
    expect(log).toEqual(['shared resources/subscribe test://1']);
  });
});
