import { describe, expect, it } from 'vitest';
import { createListenStream, type ListenFilter } from './listen-stream.js';

/** A listen that records each stream it opens and closes; `refuse` makes the next one fail. */
function recorder() {
  const log: string[] = [];
  let refuse = false;
  let opened = 0;
  return {
    log,
    refuseNext: () => {
      refuse = true;
    },
    listen: async (filter: ListenFilter) => {
      if (refuse) {
        refuse = false;
        throw Object.assign(new Error('refused'), { code: -32603 });
      }
      const id = ++opened;
      log.push(`open ${id} ${JSON.stringify(filter)}`);
      return {
        close: async () => {
          log.push(`close ${id}`);
        },
      };
    },
  };
}

describe('createListenStream', () => {
  it('asks for the list changes the upstream declares, and nothing when it declares none', async () => {
    const some = recorder();
    await createListenStream({
      declared: { tools: { listChanged: true }, prompts: {} },
      listen: some.listen,
    }).open();
    expect(some.log).toEqual(['open 1 {"toolsListChanged":true}']);
    const none = recorder();
    await createListenStream({ declared: { tools: {} }, listen: none.listen }).open();
    expect(none.log).toEqual([]);
  });

  it('opens a stream with each new filter before it closes the old one', async () => {
    const upstream = recorder();
    const stream = createListenStream({
      declared: { resources: { subscribe: true, listChanged: true } },
      listen: upstream.listen,
    });
    await stream.open();
    await stream.subscribe('test://a');
    await stream.subscribe('test://a');
    await stream.subscribe('test://b');
    await stream.unsubscribe('test://a');
    await stream.unsubscribe('test://never');
    await stream.close();
    expect(upstream.log).toEqual([
      'open 1 {"resourcesListChanged":true}',
      'open 2 {"resourcesListChanged":true,"resourceSubscriptions":["test://a"]}',
      'close 1',
      'open 3 {"resourcesListChanged":true,"resourceSubscriptions":["test://a","test://b"]}',
      'close 2',
      'open 4 {"resourcesListChanged":true,"resourceSubscriptions":["test://b"]}',
      'close 3',
      'close 4',
    ]);
  });

  it('fails a subscription the upstream refuses, keeps the stream it had, and forgets the URI', async () => {
    const upstream = recorder();
    const stream = createListenStream({ declared: {}, listen: upstream.listen });
    await stream.subscribe('test://a');
    upstream.refuseNext();
    await expect(stream.subscribe('test://b')).rejects.toMatchObject({ code: -32603 });
    await stream.subscribe('test://c');
    expect(upstream.log).toEqual([
      'open 1 {"resourceSubscriptions":["test://a"]}',
      'open 2 {"resourceSubscriptions":["test://a","test://c"]}',
      'close 1',
    ]);
  });
});
