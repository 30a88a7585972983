import { describe, expect, it } from 'vitest';
import { sha256 } from './sha256.js';

const hex = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('sha256', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
  ])('matches the FIPS 180-2 vector for %j', (text, digest) => {
    expect(hex(sha256(utf8(text)))).toBe(digest);
  });

  it('agrees with WebCrypto at every length from 0 to 300 bytes, across block boundaries', async () => {
    for (let length = 0; length <= 300; length++) {
      const data = globalThis.crypto.getRandomValues(new Uint8Array(length));
      const expected = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data));
      expect(hex(sha256(data)), `length ${length}`).toBe(hex(expected));
    }
  });
});
