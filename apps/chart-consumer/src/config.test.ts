import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has sane defaults', () => {
    expect(loadConfig({}, [])).toEqual({
      port: 3002,
      host: '127.0.0.1',
      stdio: false,
      help: false,
      publicUrl: undefined,
      allowedOrigins: undefined,
      destinations: 'public',
      pathPrefixes: undefined,
      maxConcurrentFetches: 4,
      fetchRetries: 3,
      maxConcurrentRenders: 2,
      chartDir: undefined,
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
        S2SP_PUBLIC_URL: 'https://charts.example.com',
        S2SP_ALLOWED_ORIGINS:
          'http://127.0.0.1:3001/, https://data.example.com, https://gw.example.com/weather/',
        S2SP_CONSUMER_DESTINATIONS: 'any',
        S2SP_PATH_PREFIXES: '/api, v1/data/',
        S2SP_MAX_CONCURRENT_FETCHES: '8',
        S2SP_FETCH_RETRIES: '0',
        CHART_MAX_CONCURRENT_RENDERS: '1',
        CHART_DIR: '/tmp/c',
        LOG_LEVEL: 'debug',
        S2SP_ALLOWED_HOSTS: 'charts.internal:3002',
        S2SP_AUTH_TOKENS: 'chart-token-0123456789',
      },
      ['--stdio'],
    );
    expect(config).toEqual({
      port: 0,
      host: '0.0.0.0',
      stdio: true,
      help: false,
      publicUrl: 'https://charts.example.com',
      allowedOrigins: [
        'http://127.0.0.1:3001',
        'https://data.example.com',
        'https://gw.example.com/weather',
      ],
      destinations: 'any',
      pathPrefixes: ['/api', '/v1/data'],
      maxConcurrentFetches: 8,
      fetchRetries: 0,
      maxConcurrentRenders: 1,
      chartDir: '/tmp/c',
      logLevel: 'debug',
      edge: {
        allowedHosts: ['charts.internal:3002'],
        auth: { bearerTokens: ['chart-token-0123456789'] },
        requestBodyTimeoutMs: 10_000,
      },
      misspelt: [],
    });
  });

  it.each([
    [{ PORT: 'abc' }, [], /PORT: must be a whole number from 0 to 65535/],
    [{ PORT: '70000' }, [], /PORT/],
    [{ LOG_LEVEL: 'loud' }, [], /LOG_LEVEL: must be one of/],
    [
      { S2SP_ALLOWED_ORIGINS: 'data.example.com' },
      [],
      /S2SP_ALLOWED_ORIGINS: must be http\(s\) origins/,
    ],
    [{ S2SP_PUBLIC_URL: 'ftp://x' }, [], /S2SP_PUBLIC_URL/],
    [
      { S2SP_ALLOWED_ORIGINS: 'https://data.example.com/?x=1' },
      [],
      /S2SP_ALLOWED_ORIGINS: must be http\(s\) origins/,
    ],
    [
      { S2SP_CONSUMER_DESTINATIONS: 'private' },
      [],
      /S2SP_CONSUMER_DESTINATIONS: must be one of "public", "any"/,
    ],
    [{ S2SP_PATH_PREFIXES: '/a?b' }, [], /S2SP_PATH_PREFIXES: must be paths such as \/api/],
    [
      { S2SP_MAX_CONCURRENT_FETCHES: '0' },
      [],
      /S2SP_MAX_CONCURRENT_FETCHES: must be a positive whole number/,
    ],
    [{ S2SP_FETCH_RETRIES: '11' }, [], /^S2SP_FETCH_RETRIES: /],
    [{ CHART_MAX_CONCURRENT_RENDERS: 'many' }, [], /CHART_MAX_CONCURRENT_RENDERS/],
    [{}, ['--verbose'], /--verbose: unknown option/],
  ])('rejects %j %j naming the variable', (env, argv, message) => {
    expect(() => loadConfig(env, argv)).toThrow(message);
  });

  it('reads --help and -h', () => {
    expect(loadConfig({}, ['--help']).help).toBe(true);
    expect(loadConfig({}, ['-h', '--stdio']).help).toBe(true);
  });
});

describe('start-up rules shared with every S2SP server', () => {
  it.each([[''], [','], [' ']])('refuses S2SP_AUTH_TOKENS=%j, naming it', (value) => {
    expect(codeAndDataOf(() => loadConfig({ S2SP_AUTH_TOKENS: value }, []))).toEqual([
      'invalid_config',
      { option: 'auth.bearerTokens', variable: 'S2SP_AUTH_TOKENS' },
    ]);
  });

  it('reports misspelt variables, the app’s own too', () => {
    const config = loadConfig({ CHART_DIRS: '/tmp', S2SP_ALLOWED_HOST: 'x.example' }, []);
    expect(config.misspelt.map(({ variable, meant }) => [variable, meant])).toEqual([
      ['CHART_DIRS', 'CHART_DIR'],
      ['S2SP_ALLOWED_HOST', 'S2SP_ALLOWED_HOSTS'],
    ]);
  });
});
