import { describe, expect, it } from 'vitest';
import { readToolCall } from './tool-call.js';

describe('readToolCall', () => {
  it('reads SDK v1’s extra', async () => {
    const signal = new AbortController().signal;
    const sent: unknown[] = [];
    const view = readToolCall({
      signal,
      _meta: { progressToken: 7, traceparent: 't' },
      sendNotification: async (n: never) => {
        sent.push(n);
      },
      sessionId: 's1',
      authInfo: { clientId: 'alice', token: 'secret-a' },
      requestInfo: { headers: { 'x-one': 'a', 'x-two': ['b', 'c'] }, url: new URL('http://h/mcp') },
    });
    expect(view.signal).toBe(signal);
    expect(view.meta).toEqual({ progressToken: 7, traceparent: 't' });
    expect([view.clientId, view.token]).toEqual(['alice', 'secret-a']);
    expect(view.sessionId).toBe('s1');
    expect(view.url?.href).toBe('http://h/mcp');
    expect([view.header('X-One'), view.header('x-two'), view.header('x-three')]).toEqual([
      'a',
      'b',
      undefined,
    ]);
    await view.notify?.({ method: 'notifications/progress' });
    expect(sent).toEqual([{ method: 'notifications/progress' }]);
  });

  it('reads SDK v2’s ctx', async () => {
    const signal = new AbortController().signal;
    const sent: unknown[] = [];
    const view = readToolCall({
      mcpReq: {
        signal,
        _meta: { progressToken: 'p' },
        notify: async (n: never) => {
          sent.push(n);
        },
      },
      http: {
        authInfo: { clientId: 'bob', token: 'secret-b' },
        req: new Request('http://127.0.0.1:9/mcp', { headers: { 'x-one': 'a' } }),
      },
    });
    expect(view.signal).toBe(signal);
    expect(view.meta).toEqual({ progressToken: 'p' });
    expect([view.clientId, view.token]).toEqual(['bob', 'secret-b']);
    expect(view.sessionId).toBeUndefined();
    expect(view.url?.origin).toBe('http://127.0.0.1:9');
    expect([view.header('X-ONE'), view.header('x-two')]).toEqual(['a', undefined]);
    await view.notify?.({ method: 'notifications/progress' });
    expect(sent).toEqual([{ method: 'notifications/progress' }]);
  });

  it('reads nothing from nothing: no call, an empty client id, a stdio call', () => {
    for (const call of [undefined, {}, { authInfo: { clientId: '', token: '' } }, { http: {} }]) {
      const view = readToolCall(call);
      expect([view.signal, view.meta, view.notify, view.clientId, view.token, view.url]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      expect(view.header('x-any')).toBeUndefined();
    }
  });
});
