import { codeAndDataOf, thrownCode } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { DEFAULT_SQL_LIMITS } from './sql-limits.js';

describe('loadConfig', () => {
  it('has sane defaults', () => {
    expect(loadConfig({}, [])).toEqual({
      port: 3003,
      host: '127.0.0.1',
      stdio: false,
      help: false,
      publicUrl: undefined,
      allowedOrigins: undefined,
      destinations: 'public',
      pathPrefixes: undefined,
      maxConcurrentFetches: 4,
      fetchRetries: 3,
      limits: DEFAULT_SQL_LIMITS,
      logLevel: 'info',
      slop: undefined,
      edge: { requestBodyTimeoutMs: 10_000 },
      misspelt: [],
    });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '0',
        HOST: '0.0.0.0',
        S2SP_PUBLIC_URL: 'https://sql.example.com',
        S2SP_ALLOWED_ORIGINS: 'http://127.0.0.1:3001/, https://gw.example.com/weather/',
        S2SP_CONSUMER_DESTINATIONS: 'any',
        S2SP_PATH_PREFIXES: '/api',
        S2SP_MAX_CONCURRENT_FETCHES: '8',
        S2SP_FETCH_RETRIES: '0',
        SQL_MAX_ROWS: '50',
        SQL_TOKEN_BUDGET: '2000',
        SQL_MAX_TABLE_ROWS: '1000',
        SQL_TIMEOUT_MS: '500',
        SQL_MEMORY_LIMIT_MB: '128',
        SQL_THREADS: '1',
        SQL_MAX_CONCURRENT_QUERIES: '3',
        SQL_MAX_WAITING_QUERIES: '0',
        SQL_MAX_QUERIES_PER_CLIENT: '2',
        SQL_MAX_BYTES_PER_CLIENT: '1048576',
        S2SP_AUTH_TOKENS: 'sql-token-0123456789',
      },
      ['--stdio'],
    );
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      stdio: true,
      publicUrl: 'https://sql.example.com',
      allowedOrigins: ['http://127.0.0.1:3001', 'https://gw.example.com/weather'],
      destinations: 'any',
      pathPrefixes: ['/api'],
      maxConcurrentFetches: 8,
      fetchRetries: 0,
      limits: {
        ...DEFAULT_SQL_LIMITS,
        maxResultRows: 50,
        tokenBudget: 2000,
        maxTableRows: 1000,
        maxStoredRows: 1000,
        timeoutMs: 500,
        memoryLimitMb: 128,
        threads: 1,
        maxConcurrentQueries: 3,
        maxWaitingQueries: 0,
        maxQueriesPerClient: 2,
        maxStoredBytesPerClient: 1048576,
      },
    });
    expect(config.edge.auth).toBeDefined();
  });

  it('refuses bad values and options with invalid_config', () => {
    expect(thrownCode(() => loadConfig({ SQL_TIMEOUT_MS: '0' }, []))).toBe('invalid_config');
    expect(thrownCode(() => loadConfig({ SQL_THREADS: 'many' }, []))).toBe('invalid_config');
    expect(thrownCode(() => loadConfig({ SQL_MAX_QUERIES_PER_CLIENT: '0' }, []))).toBe(
      'invalid_config',
    );
    expect(thrownCode(() => loadConfig({ SQL_MAX_WAITING_QUERIES: '-1' }, []))).toBe(
      'invalid_config',
    );
    expect(thrownCode(() => loadConfig({ SQL_MAX_BYTES_PER_CLIENT: '10' }, []))).toBe(
      'invalid_config',
    );
    expect(thrownCode(() => loadConfig({ SQL_MAX_ROWS: '100000' }, []))).toBe('invalid_config');
    expect(thrownCode(() => loadConfig({ S2SP_ALLOWED_ORIGINS: 'ftp://x' }, []))).toBe(
      'invalid_config',
    );
    expect(thrownCode(() => loadConfig({ S2SP_CONSUMER_DESTINATIONS: 'lan' }, []))).toBe(
      'invalid_config',
    );
    expect(thrownCode(() => loadConfig({}, ['--verbose']))).toBe('invalid_config');
    expect(loadConfig({}, ['-h']).help).toBe(true);
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
    const config = loadConfig({ S2SP_AUTH_TOKEN: 'a-long-token-0123456789', SQL_MAX_ROW: '5' }, []);
    expect(config.misspelt.map(({ variable, meant }) => [variable, meant])).toEqual([
      ['S2SP_AUTH_TOKEN', 'S2SP_AUTH_TOKENS'],
      ['SQL_MAX_ROW', 'SQL_MAX_ROWS'],
    ]);
  });
});
