import { configErrorVariable } from '@s2sp/core/options';
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
    expect(options.flags).toEqual(new Map([['--port', ['3011']]]));
    expect(options.tableTools).toEqual([{ name: 'query' }]);
    expect(options.noDetect).toBe(false);
  });

  it('reads an HTTP upstream with headers, its own flags, and collects every setting’s flag', () => {
    const options = parseCliArgs([
      '--upstream-url=http://127.0.0.1:9000/mcp',
      '--header',
      'Authorization: Bearer abc:def',
      '--stdio',
      '--ttl',
      '120',
      '--auth-token',
      'first-token-0123456789',
      '--auth-token=second-token-0123456789',
      '--table-tool',
      'search:/results',
      '--exclude-tool',
      'get_file',
      '--no-detect',
      '--config',
      'p.yaml',
    ]);
    expect(options).toMatchObject({
      upstream: {
        kind: 'http',
        url: 'http://127.0.0.1:9000/mcp',
        headers: { Authorization: 'Bearer abc:def' },
      },
      stdio: true,
      tableTools: [{ name: 'search', pointer: '/results' }],
      excludeTools: ['get_file'],
      noDetect: true,
      configFile: 'p.yaml',
    });
    expect(options.flags).toEqual(
      new Map([
        ['--ttl', ['120']],
        ['--auth-token', ['first-token-0123456789', 'second-token-0123456789']],
      ]),
    );
  });

  it('reads a yes/no setting alone as yes, or with its value as the next word or after =', () => {
    const flags = (args: string[]) => parseCliArgs([...args, '--', 'srv']).flags;
    expect(flags(['--shared-upstream', '--ttl', '5'])).toEqual(
      new Map([
        ['--shared-upstream', ['true']],
        ['--ttl', ['5']],
      ]),
    );
    expect(flags(['--shared-upstream', 'off'])).toEqual(new Map([['--shared-upstream', ['off']]]));
    expect(flags(['--always-load-table-tools=false'])).toEqual(
      new Map([['--always-load-table-tools', ['false']]]),
    );
    // A word that is no yes/no value is not taken: it stays an argument of its own (refused).
    expect(() => parseCliArgs(['--shared-upstream', 'maybe', '--', 'srv'])).toThrow(
      expect.objectContaining({ code: 'invalid_config', data: { variable: 'maybe' } }),
    );
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
      '--redis-prefix',
      '--ttl',
      '--timeout',
      '--token-budget',
      '--max-entries-per-client',
      '--max-bytes-per-client',
      '--max-calls-per-client',
      '--max-sessions-per-client',
      '--max-upstream-result-bytes',
      '--state',
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
      expect(USAGE).toContain(`${flag} `);
    }
    // Each line fits a terminal.
    expect(USAGE.split('\n').filter((line) => line.length > 100)).toEqual([]);
  });

  it('rejects what cannot work, naming the option', () => {
    expect(fails([])).toBe('upstream');
    expect(fails(['--bogus', '--', 'x'])).toBe('--bogus');
    expect(fails(['--port', '--', 'x'])).toBe('--port');
    expect(fails(['--upstream-url', 'ftp://x', '--'])).toBe('--upstream-url');
    expect(fails(['--upstream-url', 'http://x/mcp', '--', 'cmd'])).toBe('--upstream-url');
    expect(fails(['--header', 'X: y', '--', 'cmd'])).toBe('--header');
    expect(fails(['--upstream-url', 'http://x/mcp', '--header', 'novalue'])).toBe('--header');
    expect(fails(['--table-tool', 'q:rows', '--', 'x'])).toBe('--table-tool');
    expect(fails(['--table-tool', 'q:xml', '--', 'x'])).toBe('--table-tool');
  });
});
