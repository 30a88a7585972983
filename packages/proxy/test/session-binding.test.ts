/**
 * A 2025-era session belongs to the caller that opened it: another bearer token (or, without
 * auth, another address) that presents its `mcp-session-id` gets exactly what an unknown id gets
 * — no replay of its events, no call in it, no end to it — and a session holds a bounded number
 * of `GET` streams. Raw HTTP, since the point is the wire: session ids, event ids, statuses and
 * bodies.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GET_STREAMS_PER_SESSION } from '../src/downstream/http-sessions.js';
import { rawPost, rawSession, readEvents } from './raw-mcp.js';
import { type RunningProxy, startProxy, TABLE_SERVER } from './support.js';

const REVISION = '2025-11-25';
const TOKENS = ['session-owner-token-0123456789', 'session-other-token-0123456789'] as const;

describe('s2sp-proxy sessions are bound to the credential that opened them', () => {
  let running: RunningProxy;
  let url: string;
  const headers = (token: string, sessionId?: string): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISION,
    ...(sessionId && { 'mcp-session-id': sessionId }),
  });
  const post = (token: string, message: object, sessionId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: headers(token, sessionId),
      body: JSON.stringify(message),
    });
  const resume = (token: string, sessionId: string, lastEventId: string, signal?: AbortSignal) =>
    fetch(url, {
      headers: {
        ...headers(token, sessionId),
        accept: 'text/event-stream',
        'last-event-id': lastEventId,
      },
      ...(signal && { signal }),
    });
  const callPlain = (token: string, sessionId: string, id: number) =>
    post(
      token,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'plain', arguments: {} } },
      sessionId,
    );
  /** Status and body text, what a client can tell two answers apart by. */
  const seen = async (response: Response) => ({
    status: response.status,
    body: await response.text(),
  });

  /** `initialize` and `notifications/initialized` with `token`; the session id. */
  const openSession = async (token: string) => {
    const init = await post(token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: REVISION,
        capabilities: {},
        clientInfo: { name: 'owner', version: '1' },
      },
    });
    await init.body?.cancel();
    const sessionId = init.headers.get('mcp-session-id') ?? '';
    expect(sessionId).not.toBe('');
    await (
      await post(token, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)
    ).body?.cancel();
    return sessionId;
  };

  beforeAll(async () => {
    running = await startProxy({ upstream: TABLE_SERVER, auth: { bearerTokens: [...TOKENS] } });
    url = running.listener.mcpUrl;
  });
  afterAll(() => running?.proxy.close());

  it('answers another token with the session id exactly as an unknown id: no replay, no call, no end', async () => {
    const [owner, other] = TOKENS;
    const sessionId = await openSession(owner);
    const call = await callPlain(owner, sessionId, 2);
    const events = await readEvents(call);
    // The priming event's id: a resume from it replays the call's answer.
    const primingId = events[0]?.id ?? '';
    expect(primingId).not.toBe('');
    expect(events.some((event) => event.data.includes('hello world'))).toBe(true);

    const unknown = randomUUID();
    const asUnknown = await seen(await callPlain(other, unknown, 3));
    expect(asUnknown.status).toBe(404);

    expect(await seen(await resume(other, sessionId, primingId))).toEqual(asUnknown);
    expect(await seen(await callPlain(other, sessionId, 4))).toEqual(asUnknown);
    expect(
      await seen(await fetch(url, { method: 'DELETE', headers: headers(other, sessionId) })),
    ).toEqual(asUnknown);

    // The owner's session is whole: its events replay, and it still calls.
    const replayed = await readEvents(await resume(owner, sessionId, primingId), (event) =>
      event.data.includes('hello world'),
    );
    expect(replayed.some((event) => event.data.includes('hello world'))).toBe(true);
    const again = await readEvents(await callPlain(owner, sessionId, 5));
    expect(again.some((event) => event.data.includes('hello world'))).toBe(true);
  });

  it(`holds at most ${MAX_GET_STREAMS_PER_SESSION} GET streams of a session open, and frees a slot when one closes`, async () => {
    const [owner, other] = TOKENS;
    const sessionId = await openSession(owner);
    // One resumable stream per call (its priming event), one more than the cap.
    const primingIds: string[] = [];
    for (let n = 0; n <= MAX_GET_STREAMS_PER_SESSION; n++) {
      const events = await readEvents(await callPlain(owner, sessionId, 10 + n));
      primingIds.push(events[0]?.id ?? '');
    }
    const held: AbortController[] = [];
    for (const primingId of primingIds.slice(0, MAX_GET_STREAMS_PER_SESSION)) {
      const controller = new AbortController();
      const stream = await resume(owner, sessionId, primingId, controller.signal);
      expect(stream.status).toBe(200);
      held.push(controller);
    }
    const over = await resume(owner, sessionId, primingIds.at(-1) ?? '');
    expect(over.status).toBe(429);
    expect((await over.json()) as unknown).toMatchObject({ error: { code: -32000 } });
    // Another client's session has a cap of its own.
    const otherSession = await openSession(other);
    const priming = (await readEvents(await callPlain(other, otherSession, 30)))[0]?.id ?? '';
    const otherStream = await resume(other, otherSession, priming);
    expect(otherStream.status).toBe(200);
    await otherStream.body?.cancel();

    held.shift()?.abort();
    await expect
      .poll(
        async () => {
          const retry = await resume(owner, sessionId, primingIds.at(-1) ?? '');
          await retry.body?.cancel();
          return retry.status;
        },
        { timeout: 5_000 },
      )
      .toBe(200);
    for (const controller of held) controller.abort();
  });
});

describe('s2sp-proxy sessions without auth are bound to the address that opened them', () => {
  let running: RunningProxy;
  beforeAll(async () => {
    running = await startProxy({ upstream: TABLE_SERVER });
  });
  afterAll(() => running?.proxy.close());

  it('answers another address with the session id as an unknown id; its own address is served', async () => {
    const url = running.listener.mcpUrl;
    const opened = await rawSession(url, { localAddress: '127.0.0.1' });
    const sessionId = opened.sessionId ?? '';
    expect(sessionId).not.toBe('');
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'plain' } };
    const unknown = await rawPost(url, call, {
      localAddress: '127.0.0.2',
      sessionId: randomUUID(),
    });
    expect(unknown.status).toBe(404);
    const other = await rawPost(url, call, { localAddress: '127.0.0.2', sessionId });
    expect({ status: other.status, messages: other.messages }).toEqual({
      status: unknown.status,
      messages: unknown.messages,
    });
    const own = await rawPost(url, call, { localAddress: '127.0.0.1', sessionId });
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.messages)).toContain('hello world');
  });
});
