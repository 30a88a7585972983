import { configErrorVariable } from '@s2sp/core/options';
import { describe, expect, it } from 'vitest';
import { resolveEdgeOptions } from './edge-options.js';

describe('resolveEdgeOptions', () => {
  it('applies the servers’ defaults and adds publicUrl’s host and origin as own', () => {
    expect(resolveEdgeOptions()).toMatchObject({
      allowedHosts: [],
      allowedOrigins: [],
      auth: undefined,
      requestBodyTimeoutMs: 10_000,
      maxMcpRequestBytes: 4 * 1024 * 1024,
      maxMcpBatchSize: 10,
    });
    const resolved = resolveEdgeOptions({
      publicUrl: 'https://mcp.example.com/',
      allowedHosts: ['10.0.0.5:3001'],
      allowedBrowserOrigins: ['https://app.example.com/'],
    });
    expect(resolved.allowedHosts).toEqual(['mcp.example.com', '10.0.0.5:3001']);
    expect(resolved.allowedBrowserOrigins).toEqual(['https://app.example.com']);
    expect(resolved.allowedOrigins).toEqual(['https://mcp.example.com', 'https://app.example.com']);
    expect(resolved.publicUrl).toBe('https://mcp.example.com');
  });

  it.each([
    [{ allowedHosts: ['evil.example/path'] }, 'allowedHosts'],
    [{ allowedBrowserOrigins: ['https://app.example.com/page'] }, 'allowedBrowserOrigins'],
    [{ auth: { bearerTokens: ['short'] } }, 'auth'],
    [{ auth: {} }, 'auth'],
    [{ auth: { bearerTokens: [], verifyToken: () => undefined } }, 'auth'],
    [{ requestBodyTimeoutMs: 0 }, 'requestBodyTimeoutMs'],
    [{ maxMcpRequestBytes: -1 }, 'maxMcpRequestBytes'],
    [{ maxMcpBatchSize: 2.5 }, 'maxMcpBatchSize'],
    [{ publicUrl: 'ftp://x.example' }, 'publicUrl'],
  ] as const)('refuses %j as invalid_config, under the caller’s name for it', (options, key) => {
    const names = { [key]: `NAME_OF_${key}` };
    let caught: unknown;
    try {
      resolveEdgeOptions(options, names);
    } catch (error) {
      caught = error;
    }
    expect((caught as { code?: string }).code).toBe('invalid_config');
    expect(configErrorVariable(caught)).toBe(`NAME_OF_${key}`);
    expect(() => resolveEdgeOptions(options)).toThrow();
  });
});
