import { describe, expect, it } from 'vitest';
import {
  listenResources,
  MAX_LISTEN_RESOURCES,
  tooManyListenResources,
} from './listen-resources.js';

const listen = (notifications: object, id: unknown = 7) => ({
  jsonrpc: '2.0',
  id,
  method: 'subscriptions/listen',
  params: { notifications },
});

describe('listenResources', () => {
  it('reads the distinct URIs of a listen request, in their order', () => {
    expect(
      listenResources(
        listen({
          toolsListChanged: true,
          resourceSubscriptions: ['test://b', 'test://a', 'test://b'],
        }),
      ),
    ).toEqual({ id: 7, uris: ['test://b', 'test://a'] });
  });

  it('finds nothing to hold in other messages, a listen naming none, or one the schema refuses', () => {
    expect(
      listenResources({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    ).toBeUndefined();
    expect(listenResources(listen({ toolsListChanged: true }))).toBeUndefined();
    expect(listenResources(listen({ resourceSubscriptions: [] }))).toBeUndefined();
    expect(listenResources(listen({ resourceSubscriptions: ['test://a', 7] }))).toBeUndefined();
    expect(listenResources(listen({ resourceSubscriptions: 'test://a' }))).toBeUndefined();
    expect(listenResources(listen({ resourceSubscriptions: ['test://a'] }, null))).toBeUndefined();
    expect(listenResources(undefined)).toBeUndefined();
  });
});

describe('tooManyListenResources', () => {
  it('answers the listen request in band with -32602 and the limit', async () => {
    const uris = Array.from({ length: MAX_LISTEN_RESOURCES + 1 }, (_, i) => `test://${i}`);
    const response = tooManyListenResources({ id: 'listen:1', uris });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 'listen:1',
      error: { code: -32602, data: { limit: MAX_LISTEN_RESOURCES } },
    });
  });
});
