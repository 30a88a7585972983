import { readSettings } from '@s2sp/core/options';
import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { RedisStoreSettingsSchema } from './settings.js';
import { resolveStoreOptions } from './store-options.js';

const fromEnv = (REDIS_URL: string) =>
  readSettings(RedisStoreSettingsSchema, { env: { REDIS_URL } }, { factory: 'environment' });
const fromFlag = (url: string) =>
  readSettings(
    RedisStoreSettingsSchema,
    { flags: new Map([['--redis', [url]]]) },
    {
      factory: 's2sp-proxy',
    },
  );

describe('the one Redis URL rule', () => {
  it('takes the same URLs from REDIS_URL, --redis and the store’s url', () => {
    for (const url of [
      'redis://127.0.0.1:6379',
      'rediss://user:password@cache.example.com:6380/0',
      // The scheme in capitals: a URL's scheme is case-insensitive (the old flag rule refused it).
      'REDIS://cache:6379',
    ]) {
      expect(fromEnv(url).options.url).toBe(url);
      expect(fromFlag(url).options.url).toBe(url);
      expect(resolveStoreOptions({ url }).url).toBe(url);
    }
  });

  it.each([
    // No host: the old environment and flag rules took these, and the store then refused them.
    ['redis://'],
    ['redis:cache'],
    // Not a URL: the old flag rule, a prefix match, took it.
    ['redis://bad host'],
    ['http://cache:6379'],
    ['not a url'],
  ])('refuses %j everywhere, naming the setting', (url) => {
    expect(codeAndDataOf(() => fromEnv(url))).toEqual([
      'invalid_config',
      { option: 'url', variable: 'REDIS_URL' },
    ]);
    expect(codeAndDataOf(() => fromFlag(url))).toEqual([
      'invalid_config',
      { option: 'url', variable: '--redis' },
    ]);
    expect(codeAndDataOf(() => resolveStoreOptions({ url }))).toEqual([
      'invalid_config',
      { option: 'url' },
    ]);
  });

  it('never quotes the URL, which may hold a password', () => {
    let message = '';
    try {
      fromEnv('http://user:hunter2@cache:6379');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^REDIS_URL: /);
    expect(message).not.toContain('hunter2');
  });
});
