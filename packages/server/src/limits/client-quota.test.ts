import { S2SPError } from '@s2sp/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CLIENT_ADDRESS_HEADER,
  clientKey,
  createClientQuota,
  sealClientAddress,
} from './client-quota.js';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return S2SPError.isInstance(error) ? error.code : String(error);
  }
  return 'no error';
};

describe('createClientQuota', () => {
  it('refuses a client over its limit with store_full, and only that client', () => {
    const quota = createClientQuota({ maxEntries: 2 });
    quota.reserve('a', 'k1', 60_000);
    quota.reserve('a', 'k2', 60_000);
    expect(codeOf(() => quota.reserve('a', 'k3', 60_000))).toBe('store_full');
    quota.reserve('b', 'k4', 60_000);
    expect(quota.count('a')).toBe(2);
    expect(quota.count('b')).toBe(1);
  });

  describe('over time (fake timers: each TTL is checked at its last counted millisecond and the next)', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('gives room back when an entry is taken or expires', () => {
      const quota = createClientQuota({ maxEntries: 1 });
      quota.reserve('a', 'k1', 60_000);
      quota.release('k1');
      quota.reserve('a', 'k2', 30);
      vi.advanceTimersByTime(29);
      expect(quota.count('a')).toBe(1);
      expect(codeOf(() => quota.reserve('a', 'k3', 60_000))).toBe('store_full');
      vi.advanceTimersByTime(1);
      expect(quota.count('a')).toBe(0);
      expect(codeOf(() => quota.reserve('a', 'k3', 60_000))).toBe('no error');
    });

    it('keeps counting an entry held for repeats (PROTOCOL §7.10) until the hold ends', () => {
      const quota = createClientQuota({ maxEntries: 1 });
      quota.reserve('a', 'k1', 60_000);
      quota.hold('k1', 30);
      expect(codeOf(() => quota.reserve('a', 'k2', 60_000))).toBe('store_full');
      quota.hold('unknown', 30);
      vi.advanceTimersByTime(29);
      expect(quota.count('a')).toBe(1);
      vi.advanceTimersByTime(1);
      expect(quota.count('a')).toBe(0);
      expect(codeOf(() => quota.reserve('a', 'k2', 60_000))).toBe('no error');
    });

    it('never counts a held entry longer than it already would: not past its TTL, not again on a repeat', () => {
      const quota = createClientQuota({ maxEntries: 1 });
      // A take just before the TTL with a long grace: counted until the TTL.
      quota.reserve('a', 'k1', 100);
      quota.hold('k1', 60_000);
      vi.advanceTimersByTime(99);
      expect(quota.count('a')).toBe(1);
      vi.advanceTimersByTime(1);
      expect(quota.count('a')).toBe(0);
      // Repeats of the redemption: the hold ends where the first one put it (200 ms after it),
      // not 200 ms after the repeat.
      quota.reserve('a', 'k2', 60_000);
      quota.hold('k2', 200);
      vi.advanceTimersByTime(120);
      quota.hold('k2', 200);
      vi.advanceTimersByTime(79);
      expect(quota.count('a')).toBe(1);
      vi.advanceTimersByTime(1);
      expect(quota.count('a')).toBe(0);
      expect(codeOf(() => quota.reserve('a', 'k3', 60_000))).toBe('no error');
    });
  });

  it('refuses a bad limit with invalid_config', () => {
    expect(codeOf(() => createClientQuota({ maxEntries: 0 }))).toBe('invalid_config');
  });
});

describe('clientKey', () => {
  it('prefers the authenticated client, then the socket address, then the session', () => {
    const headers = { [CLIENT_ADDRESS_HEADER]: sealClientAddress('203.0.113.7') };
    expect(clientKey({ authInfo: { clientId: 'c1' }, requestInfo: { headers } })).toBe('client:c1');
    expect(clientKey({ requestInfo: { headers }, sessionId: 's' })).toBe('address:203.0.113.7');
    expect(clientKey({ sessionId: 's' })).toBe('session:s');
    expect(clientKey({})).toBe('anonymous');
  });

  it('ignores an address header it did not seal (a client on another transport sent it)', () => {
    for (const forged of ['203.0.113.7', ` 203.0.113.7`, sealClientAddress('').trim()]) {
      const headers = { [CLIENT_ADDRESS_HEADER]: forged };
      expect(clientKey({ requestInfo: { headers }, sessionId: 's' })).toBe('session:s');
    }
  });
});

describe('createClientQuota bytes', () => {
  it('refuses an entry that would take a client over maxBytes, for that client only', () => {
    const quota = createClientQuota({ maxEntries: 100, maxBytes: 1000 });
    quota.reserve('a', 'k1', 60_000, 600);
    expect(quota.bytes('a')).toBe(600);
    expect(codeOf(() => quota.reserve('a', 'k2', 60_000, 401))).toBe('store_full');
    expect(codeOf(() => quota.reserve('b', 'k3', 60_000, 1000))).toBe('no error');
    quota.release('k1');
    expect(quota.bytes('a')).toBe(0);
    expect(codeOf(() => quota.reserve('a', 'k2', 60_000, 1000))).toBe('no error');
    expect(quota.count('a')).toBe(1);
  });

  it('refuses a maxBytes that is not a byte size', () => {
    expect(codeOf(() => createClientQuota({ maxBytes: 0 }))).toBe('invalid_config');
    expect(codeOf(() => createClientQuota({ maxBytes: -5 }))).toBe('invalid_config');
  });
});
