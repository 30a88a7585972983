import { readFileSync } from 'node:fs';
import type { S2SPError } from '@s2sp/core';
import { configErrorVariable } from '@s2sp/core/options';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadReplayConfig, USAGE, VARIABLES } from './config.js';
import { DEFAULT_NWS_USER_AGENT } from './nws-client.js';

/** The invalid_config error `run` throws, with the variable it names. */
function configError(run: () => unknown): S2SPError & { variable: string | undefined } {
  try {
    run();
  } catch (error) {
    const variable = configErrorVariable(error);
    if (variable !== undefined) return Object.assign(error as S2SPError, { variable });
    throw error;
  }
  throw new Error('expected an invalid_config error');
}

describe('loadConfig', () => {
  it('has working defaults', () => {
    expect(loadConfig({}, [])).toEqual({
      port: 3001,
      host: '127.0.0.1',
      stdio: false,
      replay: false,
      help: false,
      nwsBaseUrl: 'https://api.weather.gov',
      nwsUserAgent: DEFAULT_NWS_USER_AGENT,
      nwsTimeoutMs: 10_000,
      nwsCacheTtlMs: 60_000,
      fixturesDir: undefined,
      publicUrl: undefined,
      ttlSeconds: 600,
      retryGraceMs: 60_000,
      redisUrl: undefined,
      redisPrefix: 's2sp:',
      logLevel: 'info',
      edge: { requestBodyTimeoutMs: 10_000 },
      misspelt: [],
    });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '0',
        HOST: '0.0.0.0',
        NWS_BASE_URL: 'http://127.0.0.1:9000/nws/',
        NWS_USER_AGENT: 'my-alerts/1.0 (ops@example.com)',
        NWS_TIMEOUT_SECONDS: '2.5',
        NWS_CACHE_SECONDS: '0',
        NWS_REPLAY: 'true',
        NWS_FIXTURES_DIR: '/data/nws',
        S2SP_PUBLIC_URL: 'https://weather.example.com/base/',
        S2SP_TTL_SECONDS: '120',
        S2SP_RETRY_GRACE_MS: '5000',
        REDIS_URL: 'redis://cache:6379/0',
        S2SP_REDIS_PREFIX: 'weather:s2sp:',
        LOG_LEVEL: 'DEBUG',
        S2SP_ALLOWED_BROWSER_ORIGINS: 'https://console.example.com',
        S2SP_BODY_TIMEOUT_MS: '5000',
      },
      ['--stdio'],
    );
    expect(config).toEqual({
      port: 0,
      host: '0.0.0.0',
      stdio: true,
      replay: true,
      help: false,
      nwsBaseUrl: 'http://127.0.0.1:9000/nws',
      nwsUserAgent: 'my-alerts/1.0 (ops@example.com)',
      nwsTimeoutMs: 2500,
      nwsCacheTtlMs: 0,
      fixturesDir: '/data/nws',
      publicUrl: 'https://weather.example.com/base',
      ttlSeconds: 120,
      retryGraceMs: 5000,
      redisUrl: 'redis://cache:6379/0',
      redisPrefix: 'weather:s2sp:',
      logLevel: 'debug',
      edge: { allowedBrowserOrigins: ['https://console.example.com'], requestBodyTimeoutMs: 5000 },
      misspelt: [],
    });
  });

  it('takes flags from the command line; blank variables mean the default', () => {
    expect(loadConfig({ PORT: '', NWS_REPLAY: ' ' }, ['--replay', '--help'])).toMatchObject({
      port: 3001,
      replay: true,
      help: true,
    });
    expect(loadConfig({ NWS_REPLAY: 'off' }, []).replay).toBe(false);
  });

  it('keeps the data plane on a stable port with --stdio, PORT to change it', () => {
    expect(loadConfig({}, ['--stdio']).port).toBe(3001);
    expect(loadConfig({ PORT: '3005' }, ['--stdio']).port).toBe(3005);
  });

  it.each([
    ['PORT', { PORT: 'abc' }, /^PORT: must be a whole number from 0 to 65535/],
    ['PORT', { PORT: '65536' }, /^PORT: /],
    ['S2SP_RETRY_GRACE_MS', { S2SP_RETRY_GRACE_MS: '600001' }, /^S2SP_RETRY_GRACE_MS: /],
    ['PORT', { PORT: '-1' }, /^PORT: /],
    ['PORT', { PORT: '30.5' }, /^PORT: /],
    ['HOST', { HOST: 'local host' }, /^HOST: must be a host name/],
    ['NWS_BASE_URL', { NWS_BASE_URL: 'api.weather.gov' }, /^NWS_BASE_URL: .*absolute http/],
    ['NWS_BASE_URL', { NWS_BASE_URL: 'ftp://x' }, /^NWS_BASE_URL: .*http or https/],
    ['NWS_BASE_URL', { NWS_BASE_URL: 'https://x/?a=1' }, /^NWS_BASE_URL: .*query/],
    ['NWS_USER_AGENT', { NWS_USER_AGENT: 'wetter-\u00fc' }, /^NWS_USER_AGENT: .*ASCII/],
    ['NWS_TIMEOUT_SECONDS', { NWS_TIMEOUT_SECONDS: '0' }, /^NWS_TIMEOUT_SECONDS: /],
    ['NWS_TIMEOUT_SECONDS', { NWS_TIMEOUT_SECONDS: '10s' }, /^NWS_TIMEOUT_SECONDS: /],
    ['NWS_CACHE_SECONDS', { NWS_CACHE_SECONDS: '-5' }, /^NWS_CACHE_SECONDS: /],
    ['NWS_REPLAY', { NWS_REPLAY: 'maybe' }, /^NWS_REPLAY: must be one of 1, true/],
    [
      'S2SP_PUBLIC_URL',
      { S2SP_PUBLIC_URL: 'https://user:pw@x' },
      /^S2SP_PUBLIC_URL: .*credentials/,
    ],
    ['S2SP_TTL_SECONDS', { S2SP_TTL_SECONDS: '0' }, /^S2SP_TTL_SECONDS: /],
    ['S2SP_TTL_SECONDS', { S2SP_TTL_SECONDS: '86401' }, /^S2SP_TTL_SECONDS: /],
    ['REDIS_URL', { REDIS_URL: 'http://cache:6379' }, /^REDIS_URL: .*redis:\/\//],
    ['REDIS_URL', { REDIS_URL: 'not a url' }, /^REDIS_URL: /],
    [
      'S2SP_REDIS_PREFIX',
      { S2SP_REDIS_PREFIX: 'weather {x}' },
      /^S2SP_REDIS_PREFIX: .*1 to 64 letters/,
    ],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }, /^LOG_LEVEL: must be one of debug, info/],
  ])('rejects a bad %s, naming it', (variable, env, message) => {
    const error = configError(() => loadConfig(env, []));
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
  });

  it('rejects unknown options', () => {
    const error = configError(() => loadConfig({}, ['--stdio', '--port=3000']));
    expect(error.variable).toBe('--port=3000');
    expect(error.message).toContain('--stdio, --replay and --help');
  });
});

describe('loadReplayConfig', () => {
  it('defaults to 127.0.0.1:3090 and validates like the server', () => {
    expect(loadReplayConfig({})).toEqual({ port: 3090, host: '127.0.0.1' });
    expect(loadReplayConfig({ PORT: '0', NWS_FIXTURES_DIR: '/tmp/f' })).toEqual({
      port: 0,
      host: '127.0.0.1',
      fixturesDir: '/tmp/f',
    });
    expect(configError(() => loadReplayConfig({ PORT: 'x' })).variable).toBe('PORT');
  });
});

describe('the variables', () => {
  it('are listed by --help and in the README’s configuration table, each once', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'));
    const rows = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
    expect([...rows].sort()).toEqual([...VARIABLES].sort());
    for (const variable of VARIABLES) expect(USAGE).toContain(variable);
    expect(new Set(VARIABLES).size).toBe(VARIABLES.length);
  });
});

describe('start-up rules shared with every S2SP server', () => {
  it.each([[''], [','], [' ']])('refuses S2SP_AUTH_TOKENS=%j, naming it', (value) => {
    const error = configError(() => loadConfig({ S2SP_AUTH_TOKENS: value }, []));
    expect([error.code, error.variable]).toEqual(['invalid_config', 'S2SP_AUTH_TOKENS']);
  });

  it('reports misspelt variables, the app’s own too, and ignores them', () => {
    const config = loadConfig(
      { S2SP_AUTH_TOKEN: 'a-long-token-0123456789', NWS_USERAGENT: 'x', NWS_CACHE_SECOND: '5' },
      [],
    );
    expect(config.misspelt.map(({ variable, meant }) => [variable, meant])).toEqual([
      ['S2SP_AUTH_TOKEN', 'S2SP_AUTH_TOKENS'],
      ['NWS_USERAGENT', 'NWS_USER_AGENT'],
      ['NWS_CACHE_SECOND', 'NWS_CACHE_SECONDS'],
    ]);
    expect(config.edge.auth).toBeUndefined();
  });
});
