import { createConsoleLogger } from '@s2sp/server';
import { captureLines } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import type { LoggingLevel, Notification, Server } from '../mcp-sdk.js';
import type { NotificationOrigin } from '../upstream/request-callers.js';
import { createNotificationHub } from './notification-hub.js';
import type { Subscriptions } from './subscriptions.js';

/** A stand-in downstream server that records what it is sent. */
function session(name: string) {
  const sent: Notification[] = [];
  const server = {
    name,
    notification: async (notification: Notification) => {
      sent.push(notification);
    },
  };
  return { server: server as unknown as Server, sent };
}

function setup() {
  const a = session('a');
  const b = session('b');
  const open = new Set([a.server, b.server]);
  const upstreamLevels: LoggingLevel[] = [];
  const log = captureLines();
  const hub = createNotificationHub({
    servers: () => open,
    logger: createConsoleLogger({ level: 'debug', write: log.write }),
    setUpstreamLevel: async (level) => {
      upstreamLevels.push(level);
    },
  });
  const subscriptions = { sessionsFor: () => [b.server] } as unknown as Subscriptions;
  const relay = (notification: Notification, origin: NotificationOrigin) =>
    hub.relay(notification, origin, subscriptions);
  return { a, b, open, hub, relay, upstreamLevels, log: log.lines };
}

const message = (level: LoggingLevel): Notification => ({
  method: 'notifications/message',
  params: { level, data: level },
});

describe('createNotificationHub', () => {
  it('sends a message to the session it belongs to, never to another', () => {
    const { a, b, relay } = setup();
    relay(message('info'), { by: 'request', session: a.server });
    relay(message('warning'), { by: 'only-caller', session: b.server });
    expect(a.sent.map((n) => n.params?.data)).toEqual(['info']);
    expect(b.sent.map((n) => n.params?.data)).toEqual(['warning']);
  });

  it('logs a message that belongs to no open session instead of broadcasting it', () => {
    const { a, b, open, relay, log } = setup();
    relay(message('error'), { by: 'unknown' });
    const gone = session('gone');
    relay(message('alert'), { by: 'request', session: gone.server });
    open.delete(a.server);
    relay(message('critical'), { by: 'request', session: a.server });
    expect([a.sent, b.sent, gone.sent]).toEqual([[], [], []]);
    expect(log.filter((line) => line.includes('no session it belongs to'))).toHaveLength(3);
    expect(log.join('\n')).toMatch(/level=critical/);
  });

  it('sends list changes to every session, resource updates to subscribers only', () => {
    const { a, b, relay } = setup();
    relay({ method: 'notifications/prompts/list_changed' }, { by: 'request', session: a.server });
    relay(
      { method: 'notifications/resources/updated', params: { uri: 'x://1' } },
      { by: 'unknown' },
    );
    expect(a.sent.map((n) => n.method)).toEqual(['notifications/prompts/list_changed']);
    expect(b.sent.map((n) => n.method)).toEqual([
      'notifications/prompts/list_changed',
      'notifications/resources/updated',
    ]);
  });

  it('filters by each session’s level and runs the upstream at the most verbose one needed', async () => {
    const { a, b, open, hub, relay, upstreamLevels } = setup();
    await hub.setLevel(a.server, 'error');
    // b never asked: it receives what the upstream sends by default, so it needs debug.
    expect(upstreamLevels).toEqual(['debug']);
    await hub.setLevel(b.server, 'warning');
    expect(upstreamLevels).toEqual(['debug', 'warning']);
    for (const level of ['debug', 'warning', 'error'] as const) {
      relay(message(level), { by: 'request', session: a.server });
      relay(message(level), { by: 'request', session: b.server });
    }
    expect(a.sent.map((n) => n.params?.data)).toEqual(['error']);
    expect(b.sent.map((n) => n.params?.data)).toEqual(['warning', 'error']);
    open.delete(b.server);
    hub.closed(b.server);
    await hub.setLevel(a.server, 'error');
    expect(upstreamLevels).toEqual(['debug', 'warning', 'error']);
  });

  it('sets no upstream level until a session asks, and sets it again after a restart', async () => {
    const { a, hub, upstreamLevels } = setup();
    hub.closed(a.server);
    hub.restarted({ logging: {} });
    expect(upstreamLevels).toEqual([]);
    await hub.setLevel(a.server, 'notice');
    hub.restarted({ logging: {} });
    await hub.setLevel(a.server, 'notice');
    expect(upstreamLevels).toEqual(['debug', 'debug']);
  });
});
