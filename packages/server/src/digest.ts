/**
 * SHA-256 over WebCrypto, the one digest the S2SP packages use: storage keys of tokens, A2S
 * checksums, and constant-length comparison of bearer tokens.
 *
 * @module
 */

/** SHA-256 of the UTF-8 bytes of `text`. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(
    await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)),
  );
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters. */
export async function sha256Hex(text: string): Promise<string> {
  let hex = '';
  for (const byte of await sha256(text)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Compares two byte strings in time that depends only on their lengths, never on where they
 * first differ. Compare digests (one fixed length) so that the length says nothing either.
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}
