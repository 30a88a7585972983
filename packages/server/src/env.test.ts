import { S2SPError } from '@s2sp/core';
import { configErrorVariable, positiveInteger } from '@s2sp/core/options';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  loadConsumerEnv,
  loadEdgeEnv,
  loadEnv,
  loadServerEnv,
  logConsumerReach,
  readSwitches,
} from './env.js';

describe('loadServerEnv', () => {
  it('has sane defaults', () => {
    expect(loadServerEnv({}, { port: 3001 })).toEqual({
      port: 3001,
      host: '127.0.0.1',
      publicUrl: undefined,
      ttlSeconds: 600,
      retryGraceMs: 60_000,
      logLevel: 'info',
      slop: undefined,
      edge: { requestBodyTimeoutMs: 10_000 },
      misspelt: [],
    });
  });

  it('reads every variable, treating blank as unset', () => {
    const env = loadServerEnv(
      {
        PORT: '0',
        HOST: '::',
        S2SP_PUBLIC_URL: 'https://data.example.com/weather/',
        S2SP_TTL_SECONDS: '60',
        S2SP_RETRY_GRACE_MS: '0',
        LOG_LEVEL: 'DEBUG',
        SLOP: 'yes',
        SLOP_BEARER_TOKENS: 'aaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbb',
        SLOP_REQUIRE_SCOPES: '1',
        NWS_BASE_URL: '',
      },
      { port: 3001 },
    );
    expect(env).toEqual({
      port: 0,
      host: '::',
      publicUrl: 'https://data.example.com/weather',
      ttlSeconds: 60,
      retryGraceMs: 0,
      logLevel: 'debug',
      slop: { bearerTokens: ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'], requireScopes: true },
      edge: { requestBodyTimeoutMs: 10_000 },
      misspelt: [],
    });
    expect(loadServerEnv({ SLOP: 'on' }, { port: 1 }).slop).toEqual({ requireScopes: false });
    expect(loadServerEnv({ PORT: '  ', SLOP: '0' }, { port: 7 })).toMatchObject({
      port: 7,
      slop: undefined,
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', /a whole number from 0 to 65535/],
    [{ PORT: '65536' }, 'PORT', /65535/],
    [{ PORT: '-1' }, 'PORT', /whole number/],
    [{ PORT: '30.5' }, 'PORT', /whole number/],
    [{ HOST: 'a b' }, 'HOST', /a host name/],
    [{ HOST: '*' }, 'HOST', /a host name/],
    [{ S2SP_PUBLIC_URL: 'data.example.com' }, 'S2SP_PUBLIC_URL', /absolute http or https URL/],
    [{ S2SP_PUBLIC_URL: 'ftp://x' }, 'S2SP_PUBLIC_URL', /http or https/],
    [{ S2SP_PUBLIC_URL: 'https://u:p@x' }, 'S2SP_PUBLIC_URL', /credentials/],
    [{ S2SP_TTL_SECONDS: '0' }, 'S2SP_TTL_SECONDS', /up to 86400/],
    [{ S2SP_TTL_SECONDS: '86401' }, 'S2SP_TTL_SECONDS', /up to 86400/],
    [{ S2SP_RETRY_GRACE_MS: '600001' }, 'S2SP_RETRY_GRACE_MS', /600000|600 000/],
    [{ S2SP_RETRY_GRACE_MS: '-1' }, 'S2SP_RETRY_GRACE_MS', /./],
    [{ S2SP_RETRY_GRACE_MS: 'soon' }, 'S2SP_RETRY_GRACE_MS', /./],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of debug, info/],
    [{ SLOP: 'maybe' }, 'SLOP', /one of 1, true/],
    [{ SLOP: '1', SLOP_BEARER_TOKENS: 'short' }, 'SLOP_BEARER_TOKENS', /at least 16/],
  ])('rejects %j, naming %s', (env, variable, message) => {
    let error: unknown;
    try {
      loadServerEnv(env, { port: 3001 });
    } catch (e) {
      error = e;
    }
    expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
    expect(configErrorVariable(error)).toBe(variable);
    expect((error as S2SPError).message).toMatch(new RegExp(`^${variable}: `));
    expect((error as S2SPError).message).toMatch(message);
  });
});

describe('loadEdgeEnv', () => {
  it('reads allowed hosts, browser origins, auth tokens and the body timeout', () => {
    expect(
      loadEdgeEnv({
        S2SP_ALLOWED_HOSTS: 'mcp.example.com, 10.0.0.5:3001',
        S2SP_ALLOWED_BROWSER_ORIGINS: 'https://app.example.com, http://localhost:5173/',
        S2SP_AUTH_TOKENS: 'aaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbb',
        S2SP_BODY_TIMEOUT_MS: '2500',
      }),
    ).toEqual({
      allowedHosts: ['mcp.example.com', '10.0.0.5:3001'],
      allowedBrowserOrigins: ['https://app.example.com', 'http://localhost:5173'],
      auth: { bearerTokens: ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'] },
      requestBodyTimeoutMs: 2500,
    });
    expect(loadEdgeEnv({ S2SP_ALLOWED_HOSTS: '*' }).allowedHosts).toEqual(['*']);
  });

  it.each([
    ['S2SP_ALLOWED_HOSTS', 'evil.example/path'],
    ['S2SP_ALLOWED_BROWSER_ORIGINS', 'https://app.example.com/page'],
    ['S2SP_ALLOWED_BROWSER_ORIGINS', 'ftp://app.example.com'],
    ['S2SP_AUTH_TOKENS', 'short'],
    ['S2SP_AUTH_TOKENS', 'has spaces in it but long'],
    ['S2SP_BODY_TIMEOUT_MS', '10'],
    ['S2SP_BODY_TIMEOUT_MS', 'soon'],
  ])('names %s for %j', (variable, value) => {
    let caught: unknown;
    try {
      loadEdgeEnv({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect(configErrorVariable(caught)).toBe(variable);
  });
});

describe('an empty credential list', () => {
  it.each([
    ['S2SP_AUTH_TOKENS', ''],
    ['S2SP_AUTH_TOKENS', ','],
    ['S2SP_AUTH_TOKENS', ' '],
    ['S2SP_AUTH_TOKENS', ' , '],
    ['SLOP_BEARER_TOKENS', ''],
    ['SLOP_BEARER_TOKENS', ','],
  ])('is refused at start when %s is set to %j, naming the variable', (variable, value) => {
    let caught: unknown;
    try {
      loadServerEnv({ SLOP: '1', [variable]: value }, { port: 1 });
    } catch (error) {
      caught = error;
    }
    expect(S2SPError.isInstance(caught) && caught.code).toBe('invalid_config');
    expect(configErrorVariable(caught)).toBe(variable);
  });

  it('is no authentication when the variable is absent, as before', () => {
    const env = loadServerEnv({ SLOP: '1' }, { port: 1 });
    expect(env.edge.auth).toBeUndefined();
    expect(env.slop).toEqual({ requireScopes: false });
    // A list that may be empty still counts as unset when blank.
    expect(loadEdgeEnv({ S2SP_ALLOWED_HOSTS: ' , ' }).allowedHosts).toBeUndefined();
  });
});

describe('misspelt variables', () => {
  it('are found by loadServerEnv among the server’s names and the app’s own', () => {
    const AppSchema = z.object({
      renders: positiveInteger().default(2).meta({ env: 'APP_MAX_RENDERS' }),
    });
    const env = loadServerEnv(
      {
        S2SP_AUTH_TOKEN: 'aaaaaaaaaaaaaaaa',
        S2SP_PUBLICURL: 'https://x.example',
        s2sp_ttl_seconds: '5',
        SLOP_BEARER_TOKEN: 'x',
        S2SP_ALLOWED_ORIGIN: 'https://x.example',
        APP_MAX_RENDER: '3',
        APP_MAX_RENDERS: '3',
        HOME: '/home/x',
        PATH: '/bin',
        HOSTNAME: 'box',
      },
      { port: 1, settings: [AppSchema] },
    );
    expect(env.misspelt.map(({ variable, meant }) => [variable, meant])).toEqual([
      ['S2SP_AUTH_TOKEN', 'S2SP_AUTH_TOKENS'],
      ['S2SP_PUBLICURL', 'S2SP_PUBLIC_URL'],
      ['s2sp_ttl_seconds', 'S2SP_TTL_SECONDS'],
      ['SLOP_BEARER_TOKEN', 'SLOP_BEARER_TOKENS'],
      ['S2SP_ALLOWED_ORIGIN', 'S2SP_ALLOWED_ORIGINS'],
      ['APP_MAX_RENDER', 'APP_MAX_RENDERS'],
    ]);
    // The misspelt one is ignored: no authentication came from it.
    expect(env.edge.auth).toBeUndefined();
  });
});

describe('loadConsumerEnv', () => {
  it('reads S2SP_FETCH_RETRIES, default 3', () => {
    expect(loadConsumerEnv({}).fetchRetries).toBe(3);
    expect(loadConsumerEnv({ S2SP_FETCH_RETRIES: '0' }).fetchRetries).toBe(0);
    expect(loadConsumerEnv({ S2SP_FETCH_RETRIES: ' 10 ' }).fetchRetries).toBe(10);
  });

  it.each([['11'], ['-1'], ['1.5'], ['many']])('names S2SP_FETCH_RETRIES for %j', (value) => {
    let caught: unknown;
    try {
      loadConsumerEnv({ S2SP_FETCH_RETRIES: value });
    } catch (error) {
      caught = error;
    }
    expect(S2SPError.isInstance(caught) && caught.code).toBe('invalid_config');
    expect(configErrorVariable(caught)).toBe('S2SP_FETCH_RETRIES');
  });
});

describe('loadEnv and readSwitches: an app’s own settings', () => {
  const Schema = z.object({
    renders: positiveInteger({ max: 64 }).default(2).meta({ env: 'APP_RENDERS' }),
    dir: z.string().min(1).optional().meta({ env: 'APP_DIR' }),
  });

  it('reads each variable by its member’s rule and applies the defaults', () => {
    expect(loadEnv(Schema, {})).toEqual({ renders: 2 });
    expect(loadEnv(Schema, { APP_RENDERS: ' 8 ', APP_DIR: '/tmp/x' })).toEqual({
      renders: 8,
      dir: '/tmp/x',
    });
  });

  it.each([['0'], ['65'], ['2.5'], ['two']])('names APP_RENDERS for %j', (value) => {
    let caught: unknown;
    try {
      loadEnv(Schema, { APP_RENDERS: value });
    } catch (error) {
      caught = error;
    }
    expect(S2SPError.isInstance(caught) && [caught.code, caught.data]).toEqual([
      'invalid_config',
      { option: 'renders', variable: 'APP_RENDERS' },
    ]);
  });

  it('takes known switches and names an unknown one', () => {
    expect(readSwitches(['--stdio'], ['--stdio', '--help']).has('--stdio')).toBe(true);
    let caught: unknown;
    try {
      readSwitches(['--stdio', '--port=3000'], ['--stdio', '--help']);
    } catch (error) {
      caught = error;
    }
    expect(configErrorVariable(caught)).toBe('--port=3000');
  });
});

describe('logConsumerReach', () => {
  const logged = (env: Record<string, string>) => {
    const lines: string[] = [];
    const record = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
    const logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    logConsumerReach(logger, loadConsumerEnv(env), 'draw_chart');
    return lines;
  };

  it('warns about any destination without an allow-list, notes public-only, and says nothing with one', () => {
    expect(logged({ S2SP_CONSUMER_DESTINATIONS: 'any' })).toEqual([
      expect.stringMatching(/^warn: S2SP_CONSUMER_DESTINATIONS=any .*draw_chart/),
    ]);
    expect(logged({})).toEqual([expect.stringMatching(/^info: S2SP_ALLOWED_ORIGINS is not set/)]);
    expect(
      logged({ S2SP_ALLOWED_ORIGINS: 'http://127.0.0.1:3001', S2SP_CONSUMER_DESTINATIONS: 'any' }),
    ).toEqual([]);
  });
});
