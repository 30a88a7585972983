/**
 * SHA-256, the one digest of the S2SP packages: the storage keys of tokens and pages, A2S
 * checksums, the comparison of bearer tokens ({@link sha256Hex}).
 *
 * In plain JavaScript for short inputs such as tokens. WebCrypto's `subtle.digest` is
 * asynchronous: in Node it runs as a job on the thread pool and costs 60–250 µs per call, a large
 * share of a small data-plane request. This synchronous version hashes a 43-character token in a
 * few microseconds, with no I/O and no `node:` import, so core stays runtime-neutral. Its output
 * is checked against WebCrypto in the tests.
 *
 * @module
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/**
 * The SHA-256 digest of `data`.
 *
 * @param data - the message
 * @returns 32 bytes
 */
export function sha256(data: Uint8Array): Uint8Array {
  const bitLength = data.byteLength * 8;
  const blocks = Math.ceil((data.byteLength + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(data);
  padded[data.byteLength] = 0x80;
  const view = new DataView(padded.buffer);
  // Length in bits, big endian, in the last 8 bytes (the high word matters past 512 MiB).
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let block = 0; block < blocks; block++) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block * 64 + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15] as number;
      const b = w[i - 2] as number;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as number[];
    for (let i = 0; i < 64; i++) {
      const s1 = rotr(e as number, 6) ^ rotr(e as number, 11) ^ rotr(e as number, 25);
      const ch = ((e as number) & (f as number)) ^ (~(e as number) & (g as number));
      const t1 = ((hh as number) + s1 + ch + (K[i] as number) + (w[i] as number)) >>> 0;
      const s0 = rotr(a as number, 2) ^ rotr(a as number, 13) ^ rotr(a as number, 22);
      const maj =
        ((a as number) & (b as number)) ^
        ((a as number) & (c as number)) ^
        ((b as number) & (c as number));
      const t2 = (s0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = ((d as number) + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0] as number) + (a as number);
    h[1] = (h[1] as number) + (b as number);
    h[2] = (h[2] as number) + (c as number);
    h[3] = (h[3] as number) + (d as number);
    h[4] = (h[4] as number) + (e as number);
    h[5] = (h[5] as number) + (f as number);
    h[6] = (h[6] as number) + (g as number);
    h[7] = (h[7] as number) + (hh as number);
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i] as number);
  return out;
}

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** 64 lowercase hex characters of a digest. */
export function hexOf(digest: Uint8Array): string {
  let hex = '';
  for (const byte of digest) hex += HEX[byte] as string;
  return hex;
}

interface NativeHashes {
  createHash(algorithm: 'sha256'): {
    update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string };
  };
  /** One-shot (Node 20.12+, 21.7+): no hash object, a third of `createHash`'s time on a token. */
  hash?(algorithm: 'sha256', data: string, encoding: 'hex'): string;
}

// A data plane hashes every token it is sent. Node (20.16+), Bun and Deno hand out their native
// crypto without an import, and its SHA-256 of a token costs ~1 µs against ~5 µs for the hash
// above (~10 µs of a small redemption, cold). WebCrypto's digest is no alternative: it is
// asynchronous, a thread-pool job in Node (60–250 µs). Elsewhere (browsers, workers) the
// JavaScript hash runs.
const nativeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NativeHashes | undefined;
const nativeOneShot = nativeCrypto?.hash?.bind(nativeCrypto);

/**
 * SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters, synchronously: the
 * runtime's native hash where it offers one without an import, {@link sha256} elsewhere.
 *
 * @param text - the message
 * @example
 * ```ts
 * sha256Hex('abc'); // 'ba7816bf…f20015ad'
 * ```
 */
export function sha256Hex(text: string): string {
  if (nativeOneShot) return nativeOneShot('sha256', text, 'hex');
  if (nativeCrypto) return nativeCrypto.createHash('sha256').update(text, 'utf8').digest('hex');
  return hexOf(sha256(encoder.encode(text)));
}
