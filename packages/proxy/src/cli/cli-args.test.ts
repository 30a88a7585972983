import { configErrorVariable } from '@s2sp/server/env';
import { describe, expect, it } from 'vitest';
import { parseCliArgs, USAGE } from './cli-args.js';

function fails(argv: string[]): string {
  try {
    parseCliArgs(argv);
  } catch (error) {
    return configErrorVariable(error) ?? 'not a config error';
  }
  throw new Error(`accepted ${argv.join(' ')}`);
}

describe('parseCliArgs', () => {
  it('reads a stdio upstream after "--", leaving its own flags alone', () => {
    const options = parseCliArgs([
      '--port',
      '3011',
      '--table-tool',
      'query',
      '--',
      'npx',
      '-y',
      'srv',
      '--port',
      '9',
    ]);
    expect(options.upstream).toEqual({
      kind: 'stdio',
      command: 'npx',
      args: ['-y', 'srv', '--port', '9'],
    });
    expect(options.port).toBe(3011);
    expect(options.host).toBe('127.0.0.1');
    expect(options.tableTools).toEqual([{ name: 'query' }]);
    expect(options.detectTables).toBe(true);
    expect(options.timeoutSeconds).toBe(60);
    expect(options.tokenBudget).toBeUndefined();
    expect(options.maxEntriesPerClient).toBeUndefined();
  });

  it('reads an HTTP upstream with headers, and every other option', () => {
    const options = parseCliArgs([
      '--upstream-url=http://127.0.0.1:9000/mcp',
      '--header',
      'Authorization: Bearer abc:def',
      '--stdio',
      '--public-url',
      'https://data.example.com',
      '--redis',
      'redis://127.0.0.1:6379',
      '--redis-prefix',
      'proxy:s2sp:',
      '--ttl',
      '120',
      '--timeout',
      '2.5',
      '--token-budget',
      '4000',
      '--max-entries-per-client',
      '50',
      '--max-upstream-result-bytes',
      '1048576',
      '--table-tool',
      'search:/results',
      '--exclude-tool',
      'get_file',
      '--no-detect',
      '--config',
      'p.yaml',
      '--log-level',
      'warn',
    ]);
    expect(options).toMatchObject({
      upstream: {
        kind: 'http',
        url: 'http://127.0.0.1:9000/mcp',
        headers: { Authorization: 'Bearer abc:def' },
      },
      stdio: true,
      port: 0,
      publicUrl: 'https://data.example.com',
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'proxy:s2sp:',
      ttlSeconds: 120,
      timeoutSeconds: 2.5,
      tokenBudget: 4000,
      maxEntriesPerClient: 50,
      maxUpstreamResultBytes: 1_048_576,
      tableTools: [{ name: 'search', pointer: '/results' }],
      excludeTools: ['get_file'],
      detectTables: false,
      configFile: 'p.yaml',
      logLevel: 'warn',
    });
  });

  it('reads the per-client limits; sets none that are not given; refuses a bad one', () => {
    const given = parseCliArgs([
      '--max-bytes-per-client',
      '1048576',
      '--max-calls-per-client=3',
      '--max-sessions-per-client',
      '2',
      '--',
      'srv',
    ]);
    expect(given.limits).toEqual({
      maxBytesPerClient: 1048576,
      maxCallsPerClient: 3,
      maxSessionsPerClient: 2,
    });
    expect(parseCliArgs(['--', 'srv']).limits).toEqual({});
    let thrown: unknown;
    try {
      parseCliArgs(['--max-calls-per-client', '0', '--', 'srv']);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { code?: string }).code).toBe('invalid_config');
  });

  it('reads the HTTP edge flags (repeatable ones repeated); sets none that are not given', () => {
    const options = parseCliArgs([
      '--auth-token',
      'first-token-0123456789',
      '--auth-token=second-token-0123456789',
      '--allowed-host',
      'mcp.example.com',
      '--allowed-host',
      '10.0.0.5:3010',
      '--allowed-browser-origin',
      'https://app.example.com/',
      '--body-timeout-ms',
      '2500',
      '--',
      'x',
    ]);
    expect(options.edge).toEqual({
      auth: { bearerTokens: ['first-token-0123456789', 'second-token-0123456789'] },
      allowedHosts: ['mcp.example.com', '10.0.0.5:3010'],
      allowedBrowserOrigins: ['https://app.example.com'],
      requestBodyTimeoutMs: 2500,
    });
    expect(parseCliArgs(['--', 'x']).edge).toEqual({});
  });

  it('rejects edge flags that cannot work, naming the flag', () => {
    expect(fails(['--auth-token', 'short', '--', 'x'])).toBe('--auth-token');
    expect(fails(['--auth-token', 'has spaces in it but long', '--', 'x'])).toBe('--auth-token');
    expect(fails(['--allowed-host', 'evil.example/path', '--', 'x'])).toBe('--allowed-host');
    expect(fails(['--allowed-browser-origin', 'ftp://a.example', '--', 'x'])).toBe(
      '--allowed-browser-origin',
    );
    expect(fails(['--body-timeout-ms', '10', '--', 'x'])).toBe('--body-timeout-ms');
    expect(fails(['--body-timeout-ms', '1.5', '--', 'x'])).toBe('--body-timeout-ms');
  });

  it('needs no upstream for --help, and documents every flag', () => {
    expect(parseCliArgs(['--help']).help).toBe(true);
    for (const flag of [
      '--port',
      '--host',
      '--public-url',
      '--stdio',
      '--upstream-url',
      '--header',
      '--redis',
      '--ttl',
      '--timeout',
      '--token-budget',
      '--max-entries-per-client',
      '--table-tool',
      '--exclude-tool',
      '--no-detect',
      '--config',
      '--log-level',
      '--auth-token',
      '--allowed-host',
      '--allowed-browser-origin',
      '--body-timeout-ms',
    ]) {
      expect(USAGE).toContain(flag);
    }
  });

  it('rejects what cannot work, naming the option', () => {
    expect(fails([])).toBe('upstream');
    expect(fails(['--bogus', '--', 'x'])).toBe('--bogus');
    expect(fails(['--port', '70000', '--', 'x'])).toBe('--port');
    expect(fails(['--port', '--', 'x'])).toBe('--port');
    expect(fails(['--ttl', '0', '--', 'x'])).toBe('--ttl');
    expect(fails(['--token-budget', '0', '--', 'x'])).toBe('--token-budget');
    expect(fails(['--token-budget', '8000.5', '--', 'x'])).toBe('--token-budget');
    expect(fails(['--token-budget', '1e4', '--', 'x'])).toBe('--token-budget');
    expect(fails(['--max-entries-per-client', '0', '--', 'x'])).toBe('--max-entries-per-client');
    expect(fails(['--max-entries-per-client', '2.5', '--', 'x'])).toBe('--max-entries-per-client');
    expect(fails(['--upstream-url', 'ftp://x', '--'])).toBe('--upstream-url');
    expect(fails(['--upstream-url', 'http://x/mcp', '--', 'cmd'])).toBe('--upstream-url');
    expect(fails(['--header', 'X: y', '--', 'cmd'])).toBe('--header');
    expect(fails(['--upstream-url', 'http://x/mcp', '--header', 'novalue'])).toBe('--header');
    expect(fails(['--table-tool', 'q:rows', '--', 'x'])).toBe('--table-tool');
    expect(fails(['--table-tool', 'q:xml', '--', 'x'])).toBe('--table-tool');
    expect(fails(['--redis', 'http://x', '--', 'x'])).toBe('--redis');
    expect(fails(['--redis', 'redis://h', '--redis-prefix', 'a{b}', '--', 'x'])).toBe(
      '--redis-prefix',
    );
    expect(fails(['--redis-prefix', 'proxy:', '--', 'x'])).toBe('--redis-prefix');
    expect(fails(['--max-upstream-result-bytes', '0', '--', 'x'])).toBe(
      '--max-upstream-result-bytes',
    );
    expect(fails(['--log-level', 'loud', '--', 'x'])).toBe('--log-level');
    expect(fails(['--host', 'a b', '--', 'x'])).toBe('--host');
  });
});
