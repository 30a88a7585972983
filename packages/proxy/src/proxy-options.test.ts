import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { readProxyRun } from './cli/proxy-run.js';
import { createS2SPProxy } from './proxy.js';
import { S2SPProxyOptionsSchema } from './proxy-options.js';

const upstream = { kind: 'stdio', command: 'node', args: ['server.js'] } as const;

describe("createS2SPProxy's options", () => {
  it('apply their defaults', () => {
    expect(S2SPProxyOptionsSchema.parse({ upstream })).toMatchObject({
      ttlSeconds: 600,
      tokenBudget: 8000,
      maxEntriesPerClient: 1000,
      timeoutSeconds: 60,
      restartDelayMs: 500,
      maxSessions: 100,
      detectTables: true,
      requestBodyTimeoutMs: 10_000,
    });
  });

  it.each([
    [{ maxEntriesPerClient: 0 }, 'maxEntriesPerClient'],
    [{ tokenBudget: 1.5 }, 'tokenBudget'],
    [{ timeoutSeconds: 0 }, 'timeoutSeconds'],
    [{ publicUrl: 'ftp://x' }, 'publicUrl'],
    [{ requestBodyTimeoutMs: 0 }, 'requestBodyTimeoutMs'],
    [{ upstream: { kind: 'ftp' } }, 'upstream'],
  ])('refuses %j, naming %s', (options, option) => {
    expect(
      codeAndDataOf(() => createS2SPProxy({ upstream, ...(options as object) } as never)),
    ).toEqual(['invalid_config', { option }]);
  });

  it('takes what the flags set, by the schema’s flag names', () => {
    const run = readProxyRun(
      [
        '--ttl',
        '30',
        '--token-budget',
        '500',
        '--max-entries-per-client',
        '7',
        '--timeout',
        '1.5',
        '--public-url',
        'https://proxy.example.com/',
        '--body-timeout-ms',
        '2500',
        '--',
        'node',
        'x',
      ],
      {},
      () => '',
    );
    const parsed = S2SPProxyOptionsSchema.parse({ upstream, ...run.options });
    expect(parsed).toMatchObject({
      ttlSeconds: 30,
      tokenBudget: 500,
      maxEntriesPerClient: 7,
      timeoutSeconds: 1.5,
      publicUrl: 'https://proxy.example.com',
      requestBodyTimeoutMs: 2500,
    });
  });
});
