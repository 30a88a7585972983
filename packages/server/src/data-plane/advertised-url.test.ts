import { thrownCode } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { createAdvertisedUrl } from './advertised-url.js';

const code = thrownCode;

describe('createAdvertisedUrl', () => {
  it('always prefers publicUrl', () => {
    const url = createAdvertisedUrl({ publicUrl: 'https://data.example.com/s', trustedHosts: [] });
    expect(url.resolve(new URL('http://127.0.0.1:9/mcp'))).toBe('https://data.example.com/s');
    expect(url.resolve(undefined)).toBe('https://data.example.com/s');
  });

  it('echoes loopback origins on any port, and trusted hosts', () => {
    const url = createAdvertisedUrl({ publicUrl: undefined, trustedHosts: ['Api.Example.com'] });
    expect(url.resolve(new URL('http://127.0.0.1:4100/mcp'))).toBe('http://127.0.0.1:4100');
    expect(url.resolve(new URL('http://localhost:80/x'))).toBe('http://localhost');
    expect(url.resolve(new URL('http://[::1]:5/mcp'))).toBe('http://[::1]:5');
    expect(url.resolve(new URL('https://api.example.com/mcp'))).toBe('https://api.example.com');
  });

  it('never echoes an untrusted or look-alike host', () => {
    const url = createAdvertisedUrl({ publicUrl: undefined, trustedHosts: [] });
    for (const spoof of [
      'http://evil.example/mcp',
      'http://127.0.0.1.evil.example/mcp',
      'http://localhost.evil.example/mcp',
    ]) {
      expect(code(() => url.resolve(new URL(spoof)))).toBe('invalid_config');
    }
    expect(code(() => url.resolve(undefined))).toBe('invalid_config');
  });

  it('falls back to the first listener and trusts its hosts', () => {
    const url = createAdvertisedUrl({ publicUrl: undefined, trustedHosts: [] });
    expect(url.current()).toBeUndefined();
    url.addListener('http://10.1.2.3:3001', ['10.1.2.3:3001']);
    url.addListener('http://10.1.2.3:3002', []);
    expect(url.current()).toBe('http://10.1.2.3:3001');
    expect(url.resolve(new URL('http://evil.example/mcp'))).toBe('http://10.1.2.3:3001');
    expect(url.resolve(new URL('http://10.1.2.3:3001/mcp'))).toBe('http://10.1.2.3:3001');
    expect(url.resolve(undefined)).toBe('http://10.1.2.3:3001');
  });
});
