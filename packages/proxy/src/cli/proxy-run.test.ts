import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configErrorVariable } from '@s2sp/core/options';
import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_FILE_BYTES } from './config-file.js';
import { readProxyRun } from './proxy-run.js';

const noFile = (path: string): string => {
  throw new Error(`no file ${path}`);
};
const files =
  (contents: Record<string, string>) =>
  (path: string): string => {
    const text = contents[path];
    if (text === undefined) throw new Error(`ENOENT: ${path}`);
    return text;
  };

/** The setting an `invalid_config` error names. */
function fails(
  argv: string[],
  env: Record<string, string> = {},
  readFile: (path: string) => string = noFile,
): string {
  try {
    readProxyRun(argv, env, readFile);
  } catch (error) {
    return configErrorVariable(error) ?? 'not a config error';
  }
  throw new Error(`accepted ${argv.join(' ')}`);
}

describe('readProxyRun: flags', () => {
  it('applies the process defaults and sets no proxy option that is not given', () => {
    const run = readProxyRun(['--port', '3011', '--', 'srv'], {}, noFile);
    expect(run).toMatchObject({
      port: 3011,
      host: '127.0.0.1',
      logLevel: 'info',
      redis: undefined,
    });
    expect(run.options).toEqual({ tableTools: [], excludeTools: [], detectTables: true });
    expect(readProxyRun(['--', 'srv'], {}, noFile).port).toBe(3010);
    expect(readProxyRun(['--stdio', '--', 'srv'], {}, noFile).port).toBe(0);
  });

  it('reads every setting’s flag by the schema’s flag names', () => {
    const run = readProxyRun(
      [
        '--upstream-url=http://127.0.0.1:9000/mcp',
        '--stdio',
        '--host',
        '::',
        '--public-url',
        'https://data.example.com/',
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
        '--state',
        'state.json',
        '--table-tool',
        'search:/results',
        '--exclude-tool',
        'get_file',
        '--no-detect',
        '--log-level',
        'WARN',
      ],
      {},
      noFile,
    );
    expect(run).toMatchObject({
      stdio: true,
      port: 0,
      host: '::',
      logLevel: 'warn',
      redis: { url: 'redis://127.0.0.1:6379', keyPrefix: 'proxy:s2sp:' },
    });
    expect(run.options).toEqual({
      publicUrl: 'https://data.example.com',
      ttlSeconds: 120,
      timeoutSeconds: 2.5,
      tokenBudget: 4000,
      maxEntriesPerClient: 50,
      maxUpstreamResultBytes: 1_048_576,
      stateFile: 'state.json',
      tableTools: [{ name: 'search', pointer: '/results' }],
      excludeTools: ['get_file'],
      detectTables: false,
    });
  });

  it('reads the per-client limits and the HTTP edge flags (repeatable ones repeated)', () => {
    const run = readProxyRun(
      [
        '--max-bytes-per-client',
        '1048576',
        '--max-calls-per-client=3',
        '--max-sessions-per-client',
        '2',
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
      ],
      {},
      noFile,
    );
    expect(run.options).toMatchObject({
      maxBytesPerClient: 1048576,
      maxCallsPerClient: 3,
      maxSessionsPerClient: 2,
      auth: { bearerTokens: ['first-token-0123456789', 'second-token-0123456789'] },
      allowedHosts: ['mcp.example.com', '10.0.0.5:3010'],
      allowedBrowserOrigins: ['https://app.example.com'],
      requestBodyTimeoutMs: 2500,
    });
  });

  it('rejects flags that cannot work, naming the flag', () => {
    for (const [argv, flag] of [
      [['--port', '70000'], '--port'],
      [['--port', '30.5'], '--port'],
      [['--host', 'a b'], '--host'],
      [['--host', '*'], '--host'],
      [['--ttl', '0'], '--ttl'],
      [['--ttl', '86401'], '--ttl'],
      [['--token-budget', '0'], '--token-budget'],
      [['--token-budget', '8000.5'], '--token-budget'],
      [['--token-budget', '1e4'], '--token-budget'],
      [['--max-entries-per-client', '0'], '--max-entries-per-client'],
      [['--max-entries-per-client', '2.5'], '--max-entries-per-client'],
      [['--max-calls-per-client', '0'], '--max-calls-per-client'],
      [['--max-upstream-result-bytes', '0'], '--max-upstream-result-bytes'],
      [['--redis', 'http://x'], '--redis'],
      [['--redis', 'redis://'], '--redis'],
      [['--redis', 'redis://h', '--redis-prefix', 'a{b}'], '--redis-prefix'],
      [['--redis-prefix', 'proxy:'], '--redis-prefix'],
      [['--log-level', 'loud'], '--log-level'],
      [['--auth-token', 'short'], '--auth-token'],
      [['--auth-token', 'has spaces in it but long'], '--auth-token'],
      [['--allowed-host', 'evil.example/path'], '--allowed-host'],
      [['--allowed-browser-origin', 'ftp://a.example'], '--allowed-browser-origin'],
      [['--body-timeout-ms', '10'], '--body-timeout-ms'],
      [['--body-timeout-ms', '1.5'], '--body-timeout-ms'],
    ] as const) {
      expect(fails([...argv, '--', 'x'])).toBe(flag);
    }
    expect(codeAndDataOf(() => readProxyRun(['--ttl', '0', '--', 'x'], {}, noFile))).toEqual([
      'invalid_config',
      { option: 'ttlSeconds', variable: '--ttl' },
    ]);
  });
});

describe('readProxyRun: the config file', () => {
  it('reads YAML and JSON with every form of table tool, adding the flags’ lists', () => {
    const yaml =
      'tableTools:\n  - query\n  - search:/results\n  - { name: list, pointer: /items }\n  - export:csv\n  - { name: page, format: markdown }\n  - { name: deep, pointer: /a, format: json }\nexcludeTools: [get_file]\ndetect: false\ntokenBudget: 4000\n';
    const run = readProxyRun(
      ['--config', 'proxy.yaml', '--table-tool', 'extra', '--exclude-tool', 'other', '--', 'x'],
      {},
      files({ 'proxy.yaml': yaml }),
    );
    expect(run.options).toEqual({
      tableTools: [
        { name: 'query' },
        { name: 'search', pointer: '/results' },
        { name: 'list', pointer: '/items' },
        { name: 'export', format: 'csv' },
        { name: 'page', format: 'markdown' },
        { name: 'deep', pointer: '/a', format: 'json' },
        { name: 'extra' },
      ],
      excludeTools: ['get_file', 'other'],
      detectTables: false,
      tokenBudget: 4000,
    });
    const json = readProxyRun(
      ['--config', 'p.json', '--', 'x'],
      {},
      files({ 'p.json': '{"tableTools":["q"]}' }),
    );
    expect(json.options).toEqual({
      tableTools: [{ name: 'q' }],
      excludeTools: [],
      detectTables: true,
    });
    const empty = readProxyRun(['--config', 'e.yaml', '--', 'x'], {}, files({ 'e.yaml': '' }));
    expect(empty.options.tableTools).toEqual([]);
  });

  it('reads the HTTP edge keys with the edge’s rules, naming the file and key when one is wrong', () => {
    const yaml =
      'authTokens: [file-token-0123456789]\nallowedHosts: [mcp.example.com]\nallowedBrowserOrigins: [https://app.example.com]\nbodyTimeoutMs: 3000\n';
    const run = readProxyRun(['--config', 'p.yaml', '--', 'x'], {}, files({ 'p.yaml': yaml }));
    expect(run.options).toMatchObject({
      auth: { bearerTokens: ['file-token-0123456789'] },
      allowedHosts: ['mcp.example.com'],
      allowedBrowserOrigins: ['https://app.example.com'],
      requestBodyTimeoutMs: 3000,
    });
    for (const [text, key] of [
      ['authTokens: [short]', 'authTokens'],
      ['allowedHosts: ["a b"]', 'allowedHosts'],
      ['allowedBrowserOrigins: [https://app.example.com/page]', 'allowedBrowserOrigins'],
      ['bodyTimeoutMs: 5', 'bodyTimeoutMs'],
      ['tokenBudget: 0', 'tokenBudget'],
      ['tokenBudget: 2.5', 'tokenBudget'],
      ['tokenBudget: "8000"', 'tokenBudget'],
      ['excludeTools: [1]', 'excludeTools'],
      ['tableTools: query', 'tableTools'],
      ['tableTools: ["q:rows"]', 'tableTools'],
      ['tableTools: [{ name: q, format: xml }]', 'tableTools'],
      ['tableTools: [{ name: q, pointer: a, format: csv }]', 'tableTools'],
      ['tableTools: [{ name: q, columns: [a] }]', 'tableTools'],
      // A misspelt key is refused, not ignored, and named as it is near a real one.
      ['tableTool: [a]', 'tableTool'],
      ['authtokens: [file-token-0123456789]', 'authtokens'],
    ] as const) {
      expect(fails(['--config', 'p.yaml', '--', 'x'], {}, files({ 'p.yaml': text }))).toBe(
        `p.yaml: ${key}`,
      );
    }
  });

  it('names the file for broken syntax, and --config for a file it cannot read', () => {
    // A key that is no slip of a real one is refused without being quoted: it is the file's text.
    for (const text of ['detect: [', '[1, 2]', '"text"', 'tables: [a]']) {
      expect(fails(['--config', 'p.yaml', '--', 'x'], {}, files({ 'p.yaml': text }))).toBe(
        'p.yaml',
      );
    }
    expect(fails(['--config', 'missing.yaml', '--', 'x'])).toBe('--config');
  });
});

describe('readProxyRun: one precedence', () => {
  const file = files({ 'p.yaml': 'bodyTimeoutMs: 2000\nallowedHosts: [file.example.com]\n' });
  const env = { S2SP_BODY_TIMEOUT_MS: '1000', S2SP_ALLOWED_HOSTS: 'env.example.com' };

  it('a flag wins over the file, the file over the environment, the default over nothing', () => {
    const flagged = readProxyRun(
      ['--config', 'p.yaml', '--body-timeout-ms', '3000', '--', 'x'],
      env,
      file,
    );
    expect(flagged.options).toMatchObject({
      requestBodyTimeoutMs: 3000,
      allowedHosts: ['file.example.com'],
    });
    expect(readProxyRun(['--config', 'p.yaml', '--', 'x'], env, file).options).toMatchObject({
      requestBodyTimeoutMs: 2000,
    });
    expect(readProxyRun(['--', 'x'], env, noFile).options).toMatchObject({
      requestBodyTimeoutMs: 1000,
      allowedHosts: ['env.example.com'],
    });
    expect(readProxyRun(['--', 'x'], {}, noFile).options.requestBodyTimeoutMs).toBeUndefined();
  });

  it('reads only the edge’s variables and S2SP_REDIS_PREFIX from the environment', () => {
    const run = readProxyRun(
      ['--redis', 'redis://cache:6379', '--', 'x'],
      {
        PORT: '9999',
        HOST: '0.0.0.0',
        LOG_LEVEL: 'debug',
        REDIS_URL: 'redis://other:6379',
        S2SP_TTL_SECONDS: '5',
        S2SP_PUBLIC_URL: 'https://elsewhere.example.com',
        S2SP_REDIS_PREFIX: 'proxy:',
        S2SP_AUTH_TOKENS: 'env-token-0123456789',
      },
      noFile,
    );
    expect(run).toMatchObject({
      port: 3010,
      host: '127.0.0.1',
      logLevel: 'info',
      redis: { url: 'redis://cache:6379', keyPrefix: 'proxy:' },
    });
    expect(run.options.ttlSeconds).toBeUndefined();
    expect(run.options.publicUrl).toBeUndefined();
    expect(run.options.auth).toEqual({ bearerTokens: ['env-token-0123456789'] });
    // The prefix variable alone, without --redis, is no error: it waits for a Redis.
    expect(readProxyRun(['--', 'x'], { S2SP_REDIS_PREFIX: 'proxy:' }, noFile).redis).toBe(
      undefined,
    );
    expect(fails(['--', 'x'], { S2SP_BODY_TIMEOUT_MS: '5' })).toBe('S2SP_BODY_TIMEOUT_MS');
  });
});

describe('readProxyRun: an empty credential list, one rule from every source', () => {
  const tokenFile = files({ 'empty.yaml': 'authTokens: []\n' });

  it.each([
    ['S2SP_AUTH_TOKENS=""', [], { S2SP_AUTH_TOKENS: '' }, 'S2SP_AUTH_TOKENS'],
    ['S2SP_AUTH_TOKENS=","', [], { S2SP_AUTH_TOKENS: ',' }, 'S2SP_AUTH_TOKENS'],
    ['S2SP_AUTH_TOKENS=" "', [], { S2SP_AUTH_TOKENS: ' ' }, 'S2SP_AUTH_TOKENS'],
    ['authTokens: []', ['--config', 'empty.yaml'], {}, 'empty.yaml: authTokens'],
    ['--auth-token ""', ['--auth-token', ''], {}, '--auth-token'],
  ] as const)('%s is refused at start, naming it', (_, flags, env, variable) => {
    expect(codeAndDataOf(() => readProxyRun([...flags, '--', 'x'], env, tokenFile))).toEqual([
      'invalid_config',
      { option: 'auth.bearerTokens', variable },
    ]);
  });

  it('a file’s empty list is refused even when the environment gives tokens', () => {
    expect(
      codeAndDataOf(() =>
        readProxyRun(
          ['--config', 'empty.yaml', '--', 'x'],
          { S2SP_AUTH_TOKENS: 'env-token-0123456789' },
          tokenFile,
        ),
      ),
    ).toEqual([
      'invalid_config',
      { option: 'auth.bearerTokens', variable: 'empty.yaml: authTokens' },
    ]);
  });

  it('no variable, flag or key is no authentication, as before', () => {
    expect(readProxyRun(['--', 'x'], {}, noFile).options.auth).toBeUndefined();
  });
});

describe('readProxyRun: misspelt variables', () => {
  it('names the variable meant, and ignores the misspelt one', () => {
    const run = readProxyRun(
      ['--', 'x'],
      {
        S2SP_AUTH_TOKEN: 'env-token-0123456789',
        S2SP_ALLOWED_HOST: 'mcp.example.com',
        s2sp_redis_prefix: 'p:',
        S2SP_TTL_SECONDS: '5',
        HOME: '/home/x',
        PORT: '1',
      },
      noFile,
    );
    expect(run.misspelt.map(({ variable, meant }) => [variable, meant])).toEqual([
      ['S2SP_AUTH_TOKEN', 'S2SP_AUTH_TOKENS'],
      ['S2SP_ALLOWED_HOST', 'S2SP_ALLOWED_HOSTS'],
      ['s2sp_redis_prefix', 'S2SP_REDIS_PREFIX'],
    ]);
    expect(run.options.auth).toBeUndefined();
    expect(
      readProxyRun(['--', 'x'], { S2SP_AUTH_TOKENS: 'env-token-0123456789' }).misspelt,
    ).toEqual([]);
  });
});

describe('readProxyRun: the --config file as the command line names it', () => {
  const dir = mkdtempSync(join(tmpdir(), 's2sp-config-'));
  const run = (path: string) => () => readProxyRun(['--config', path, '--', 'x'], {});

  it('reads a regular file, through a link too', () => {
    const file = join(dir, 'p.yaml');
    writeFileSync(file, 'allowedHosts: [mcp.example.com]\n');
    const link = join(dir, 'link.yaml');
    symlinkSync(file, link);
    expect(run(link)().options.allowedHosts).toEqual(['mcp.example.com']);
  });

  it('refuses without reading: a FIFO, a device, a directory, a file over the cap', () => {
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `# ${'x'.repeat(MAX_CONFIG_FILE_BYTES)}\n`);
    const atCap = join(dir, 'at-cap.yaml');
    writeFileSync(atCap, `# ${'x'.repeat(MAX_CONFIG_FILE_BYTES - 3)}\n`);
    for (const path of [fifo, '/dev/zero', dir, big, join(dir, 'missing.yaml')])
      expect(codeAndDataOf(run(path))).toEqual(['invalid_config', { variable: '--config' }]);
    expect(run(atCap)().options.allowedHosts).toBeUndefined();
  });

  it('never quotes the file: a link to a secret gives an error without it', () => {
    const secret = 'sk-fake-secret-0123456789abcdef';
    for (const [name, text] of [
      ['key', `${secret}: x\n`],
      ['alias', `*${secret}\n`],
      ['broken', `${secret}: [\n`],
      ['flow', `{${secret}: 1,,}\n`],
    ]) {
      const file = join(dir, `${name}.secret`);
      writeFileSync(file, text as string);
      const link = join(dir, `${name}.yaml`);
      symlinkSync(file, link);
      let caught: unknown;
      try {
        run(link)();
      } catch (error) {
        caught = error;
      }
      expect(configErrorVariable(caught)).toBe(link);
      expect((caught as Error).message.includes('0123456789')).toBe(false);
    }
  });
});
