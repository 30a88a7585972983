/**
 * A 2025-era client whose SSE stream breaks resumes it: the proxy's events carry ids, and a `GET`
 * with `Last-Event-ID` replays what the client missed (the answer of the call it was waiting for).
 * Raw HTTP, since the point is the wire: event ids, a dropped connection, the resume request.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../src/index.js';
import { readEvents } from './raw-mcp.js';
import { type RunningProxy, startProxy } from './support.js';

const RELAY_SERVER: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/relay-server.mjs', import.meta.url))],
};
const REVISION = '2025-11-25';

describe('s2sp-proxy SSE streams of a 2025-era session', () => {
  let running: RunningProxy;
  let url: string;
  const headers = (sessionId?: string): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISION,
    ...(sessionId && { 'mcp-session-id': sessionId }),
  });
  const post = (message: object, sessionId?: string, signal?: AbortSignal) =>
    fetch(url, {
      method: 'POST',
      headers: headers(sessionId),
      body: JSON.stringify(message),
      ...(signal && { signal }),
    });

  /** `initialize` on a new session; its id. */
  const initialize = async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: REVISION,
        capabilities: {},
        clientInfo: { name: 'resumer', version: '1' },
      },
    });
    await init.body?.cancel();
    return init.headers.get('mcp-session-id') ?? '';
  };

  beforeAll(async () => {
    running = await startProxy({ upstream: RELAY_SERVER });
    url = running.listener.mcpUrl;
  });
  afterAll(() => running?.proxy.close());

  it('carries event ids, and replays the missed answer to a client that resumes', async () => {
    const sessionId = await initialize();
    expect(sessionId).not.toBe('');
    await (
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)
    ).body?.cancel();

    // A call that answers in 400 ms; the client's connection drops after the first event.
    const dropped = new AbortController();
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'wait', arguments: { ms: 400 } },
      },
      sessionId,
      dropped.signal,
    );
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    const before = await readEvents(call, (event) => event.id !== undefined);
    const lastEventId = before.at(-1)?.id;
    expect(lastEventId).toBeDefined();
    expect(before.some((event) => event.data.includes('"id":2'))).toBe(false);
    dropped.abort();

    await new Promise((resolve) => setTimeout(resolve, 700));
    const resumed = await fetch(url, {
      headers: {
        ...headers(sessionId),
        accept: 'text/event-stream',
        'last-event-id': lastEventId ?? '',
      },
    });
    expect(resumed.status).toBe(200);
    const replayed = await readEvents(resumed, (event) => event.data.includes('"id":2'));
    const answer = replayed.find((event) => event.data.includes('"id":2'));
    expect(answer?.id).toBeDefined();
    expect(JSON.parse(answer?.data ?? '{}')).toMatchObject({
      id: 2,
      result: { content: [{ type: 'text', text: JSON.stringify({ waited: 400 }) }] },
    });
  });

  it('refuses a resume from an event id it never issued', async () => {
    const sessionId = await initialize();
    const resumed = await fetch(url, {
      headers: { ...headers(sessionId), accept: 'text/event-stream', 'last-event-id': 'forged_7' },
    });
    expect(resumed.status).toBe(400);
    await resumed.body?.cancel();
  });
});
