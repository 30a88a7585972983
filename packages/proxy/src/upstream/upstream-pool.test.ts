import { S2SPError } from '@s2sp/core';
import { createConsoleLogger } from '@s2sp/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Upstream } from './upstream.js';
import { createUpstreamPool } from './upstream-pool.js';

/** An upstream session that records what happened to it; `fail` makes its start reject. */
function session(key: string, log: string[], fail = false): Upstream {
  return {
    start: async () => {
      log.push(`start ${key}`);
      if (fail) throw new S2SPError('unavailable', `${key} did not start`);
    },
    request: async (request) => ({ key, method: request.method }),
    capabilities: () => ({ tools: {} }),
    era: () => 'legacy',
    serverInfo: () => undefined,
    instructions: () => undefined,
    restarts: () => 0,
    notify: async () => {},
    close: async () => {
      log.push(`close ${key}`);
    },
  };
}

const logger = createConsoleLogger({ level: 'silent' });
const shared = {
  capabilities: () => ({ tools: {} }),
  era: () => 'legacy' as const,
  serverInfo: () => undefined,
  instructions: () => undefined,
};

describe('createUpstreamPool', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('opens one session per key on its first request, and reuses it', async () => {
    const log: string[] = [];
    const pool = createUpstreamPool<string>(
      { open: (key) => session(key, log), maxSessions: 4, idleMs: 60_000, logger },
      shared,
    );
    const a = pool.lease('a', { idleClose: false });
    expect(log).toEqual([]);
    expect(await a.request({ method: 'tools/list' })).toEqual({ key: 'a', method: 'tools/list' });
    await a.request({ method: 'tools/call' });
    await pool.lease('b', { idleClose: false }).request({ method: 'tools/list' });
    expect(log).toEqual(['start a', 'start b']);
    expect(pool.size()).toBe(2);
    await pool.release('a');
    expect(log).toEqual(['start a', 'start b', 'close a']);
    expect(pool.size()).toBe(1);
    await pool.close();
  });

  it('refuses a key beyond maxSessions with unavailable and the limit, and serves it once one closes', async () => {
    const log: string[] = [];
    const pool = createUpstreamPool<string>(
      { open: (key) => session(key, log), maxSessions: 1, idleMs: 60_000, logger },
      shared,
    );
    await pool.lease('a', { idleClose: false }).request({ method: 'ping' });
    const refused = await pool
      .lease('b', { idleClose: false })
      .request({ method: 'ping' })
      .catch((error: unknown) => error);
    expect(S2SPError.isInstance(refused) && [refused.code, refused.data]).toEqual([
      'unavailable',
      { limit: 1 },
    ]);
    await pool.release('a');
    expect(await pool.lease('b', { idleClose: false }).request({ method: 'ping' })).toMatchObject({
      key: 'b',
    });
    await pool.close();
  });

  it('forgets a session that could not start, so that the next request tries again', async () => {
    const log: string[] = [];
    let fail = true;
    const pool = createUpstreamPool<string>(
      { open: (key) => session(key, log, fail), maxSessions: 1, idleMs: 60_000, logger },
      shared,
    );
    const lease = pool.lease('a', { idleClose: false });
    await expect(lease.request({ method: 'ping' })).rejects.toMatchObject({ code: 'unavailable' });
    await vi.waitFor(() => expect(pool.size()).toBe(0));
    fail = false;
    expect(await lease.request({ method: 'ping' })).toMatchObject({ key: 'a' });
    expect(log.filter((line) => line === 'start a')).toHaveLength(2);
    await pool.close();
  });

  it('closes an idle-closable session after idleMs without a request, and no other', async () => {
    vi.useFakeTimers();
    const log: string[] = [];
    const pool = createUpstreamPool<string>(
      { open: (key) => session(key, log), maxSessions: 4, idleMs: 10_000, logger },
      shared,
    );
    await pool.lease('modern', { idleClose: true }).request({ method: 'ping' });
    await pool.lease('session', { idleClose: false }).request({ method: 'ping' });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(pool.size()).toBe(2);
    // The sweep runs every idleMs (at 10 s and 20 s): the second finds it idle for longer.
    await vi.advanceTimersByTimeAsync(16_000);
    expect(log).toContain('close modern');
    expect(log).not.toContain('close session');
    expect(pool.size()).toBe(1);
    await pool.close();
  });

  it('keeps an idle session its owner still uses without a request', async () => {
    vi.useFakeTimers();
    const log: string[] = [];
    let listening = true;
    const pool = createUpstreamPool<string>(
      {
        open: (key) => session(key, log),
        maxSessions: 4,
        idleMs: 10_000,
        logger,
        inUse: () => listening,
      },
      shared,
    );
    await pool.lease('modern', { idleClose: true }).request({ method: 'ping' });
    await vi.advanceTimersByTimeAsync(21_000);
    expect(pool.size()).toBe(1);
    listening = false;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(log).toContain('close modern');
    expect(pool.size()).toBe(0);
    await pool.close();
  });

  it('answers with the shared capabilities before any session is open, and opens none to notify', async () => {
    const log: string[] = [];
    const pool = createUpstreamPool<string>(
      { open: (key) => session(key, log), maxSessions: 4, idleMs: 60_000, logger },
      shared,
    );
    const lease = pool.lease('a', { idleClose: false });
    expect(lease.capabilities()).toEqual({ tools: {} });
    await lease.notify({ method: 'notifications/roots/list_changed' });
    expect(log).toEqual([]);
    await pool.close();
  });
});
