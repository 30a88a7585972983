import { describe, expect, it } from 'vitest';
import { S2SPError } from './errors.js';
import { normalizePublicUrl } from './public-url.js';
import { hexOf, sha256 } from './sha256.js';
import {
  buildResourceUrl,
  generateToken,
  isTokenShape,
  parseResourceUrl,
  tokenStorageKey,
} from './token.js';

function refusal(fn: () => unknown): S2SPError {
  try {
    fn();
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('tokens', () => {
  it('are 43 base64url characters from 32 random bytes, all distinct', () => {
    const tokens = Array.from({ length: 2000 }, generateToken);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(isTokenShape(token)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('use every base64url character across many tokens (the encoder is not biased)', () => {
    const seen = new Set(Array.from({ length: 500 }, generateToken).join(''));
    expect(seen.size).toBe(64);
  });

  it('check the shape strictly', () => {
    const token = generateToken();
    expect(isTokenShape(`${token}A`)).toBe(false);
    expect(isTokenShape(token.slice(1))).toBe(false);
    expect(isTokenShape(`${token.slice(0, 42)}+`)).toBe(false);
    // 32 bytes leave 2 unused bits in the last character: 'B' could never be minted.
    expect(isTokenShape(`${token.slice(0, 42)}B`)).toBe(false);
    expect(isTokenShape(`${token.slice(0, 42)}A`)).toBe(true);
    expect(isTokenShape(42)).toBe(false);
  });

  it('are stored under the SHA-256 hex of the token', async () => {
    // SHA-256("abc"), FIPS 180-2 test vector.
    expect(await tokenStorageKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const token = generateToken();
    const key = await tokenStorageKey(token);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).not.toContain(token);
  });

  it('get the same key from the native hash and the JavaScript one', async () => {
    // The runtime's own SHA-256 serves where it exists (Node here); sha256 everywhere else.
    const inJavaScript = (text: string) => hexOf(sha256(new TextEncoder().encode(text)));
    expect(inJavaScript('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const inputs = [
      '',
      'é€😀',
      ...Array.from({ length: 200 }, generateToken),
      ...Array.from({ length: 130 }, (_, n) => 'x'.repeat(n)),
    ];
    for (const input of inputs) expect(await tokenStorageKey(input)).toBe(inJavaScript(input));
  });
});

describe('resource URLs', () => {
  const token = `${'a'.repeat(42)}A`;

  it('are built from the public URL, keeping a path prefix and dropping trailing slashes', () => {
    expect(buildResourceUrl('http://127.0.0.1:3001', token)).toBe(
      `http://127.0.0.1:3001/s2sp/data/${token}`,
    );
    expect(buildResourceUrl('https://Data.Example.com:443/api/', token)).toBe(
      `https://data.example.com/api/s2sp/data/${token}`,
    );
  });

  it('refuse a public URL that cannot be a base', () => {
    for (const bad of ['not a url', 'ftp://x', 'http://u:p@x', 'http://x/?q=1', 'http://x/#f']) {
      expect(refusal(() => normalizePublicUrl(bad)).code).toBe('invalid_config');
    }
  });

  it('parse back to a rebuilt URL, origin and token', () => {
    const parsed = parseResourceUrl(` https://data.example.com/s2sp/data/${token} `);
    expect(parsed).toEqual({
      href: `https://data.example.com/s2sp/data/${token}`,
      origin: 'https://data.example.com',
      token,
    });
  });

  it('accept a path prefix only when the operator configured it', () => {
    const url = `https://data.example.com/api/s2sp/data/${token}`;
    expect(refusal(() => parseResourceUrl(url)).message).toMatch(/exactly \/s2sp\/data\/\{token\}/);
    expect(
      refusal(() => parseResourceUrl(url, { allowedOrigins: ['https://data.example.com'] })).code,
    ).toBe('invalid_request');
    expect(
      refusal(() =>
        parseResourceUrl(`https://data.example.com/admin/api/s2sp/data/${token}`, {
          pathPrefixes: ['/api'],
        }),
      ).code,
    ).toBe('invalid_request');
    expect(parseResourceUrl(url, { pathPrefixes: ['/api/'] }).href).toBe(url);
    expect(parseResourceUrl(url, { allowedOrigins: ['https://data.example.com/api/'] }).href).toBe(
      url,
    );
    expect(
      refusal(() => parseResourceUrl(url, { allowedOrigins: ['https://other.example.com/api'] }))
        .code,
    ).toBe('forbidden');
  });

  it('honour an origin allow-list exactly', () => {
    const url = `http://127.0.0.1:3001/s2sp/data/${token}`;
    expect(parseResourceUrl(url, { allowedOrigins: ['http://127.0.0.1:3001/'] }).origin).toBe(
      'http://127.0.0.1:3001',
    );
    // The consumer's configuration refuses it: forbidden, not a bad call to retry.
    expect(
      refusal(() => parseResourceUrl(url, { allowedOrigins: ['http://127.0.0.1:3002'] })).code,
    ).toBe('forbidden');
    expect(
      refusal(() => parseResourceUrl(url, { allowedOrigins: ['http://localhost:3001'] })).code,
    ).toBe('forbidden');
  });

  it.each([
    ['', 'empty'],
    [`ddi://${token}`, 'ddi:// handle'],
    [`file:///s2sp/data/${token}`, 'scheme file'],
    [`gopher://x/s2sp/data/${token}`, 'scheme gopher'],
    [`data:text/plain,/s2sp/data/${token}`, 'scheme data'],
    [`http://a@evil.example/s2sp/data/${token}`, 'credentials'],
    [`http://evil.example#@good.example/s2sp/data/${token}`, 'credentials'],
    [`http://x/s2sp/data/${token}?a=1`, 'query or a fragment'],
    [`http://x/s2sp/data/${token}#f`, 'query or a fragment'],
    [`http://x/a/../s2sp/data/${token}`, 'canonical'],
    [`http://x/%2e%2e/s2sp/data/${token}`, 'canonical'],
    [`http:\\\\x\\s2sp\\data\\${token}`, 'canonical'],
    [`http://X/s2sp/data/${token}`, 'canonical'],
    [`http://x:80/s2sp/data/${token}`, 'canonical'],
    [`http://0x7f.1/s2sp/data/${token}`, 'canonical'],
    [`http://x/s2sp/data/${token}/`, 'path'],
    [`http://x/s2sp/data/short`, 'path'],
    [`http://x/other/${token}`, 'path'],
    ['/s2sp/data/relative', 'absolute'],
  ])('refuse %s (%s) without echoing the token', (input, reason) => {
    const error = refusal(() => parseResourceUrl(input));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(reason);
    expect(error.message).not.toContain(token);
  });
});
