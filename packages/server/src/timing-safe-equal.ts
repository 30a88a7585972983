/**
 * Comparing secrets without telling, by timing, how much of them matched. The digests compared
 * come from core's one SHA-256 (`sha256Hex`).
 *
 * @module
 */

/**
 * Compares two byte strings in time that depends only on their lengths, never on where they
 * first differ. Compare digests (one fixed length) so that the length says nothing either.
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}
