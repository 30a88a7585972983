import { S2SPError, sha256Hex } from '@s2sp/core';
import { canonicalJson } from './canonical-json.js';
import { type A2SCapability, A2SCapabilitySchema } from './schemas.js';

/**
 * The checksum of a capability: SHA-256, lowercase hex, of {@link canonicalJson} of the document
 * without its `checksum` member.
 */
export async function capabilityChecksum(document: Record<string, unknown>): Promise<string> {
  const { checksum: _checksum, ...rest } = document;
  return sha256Hex(canonicalJson(rest));
}

/** Validates a capability and sets its `checksum`. */
export async function sealCapability(
  document: Omit<A2SCapability, 'checksum'>,
): Promise<A2SCapability> {
  const parsed = A2SCapabilitySchema.safeParse(document);
  if (!parsed.success)
    throw new S2SPError(
      'invalid_request',
      `Not a valid A2S capability: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`,
    );
  const { checksum: _checksum, ...rest } = document as A2SCapability;
  return { ...rest, checksum: await capabilityChecksum(rest) };
}

/**
 * Checks a capability document received from elsewhere: valid shape, and a checksum that matches
 * its content. A document changed after sealing fails.
 *
 * @returns `{ valid: true }`, or `{ valid: false, reason }`
 */
export async function verifyCapability(
  document: unknown,
): Promise<{ valid: true } | { valid: false; reason: string }> {
  const parsed = A2SCapabilitySchema.safeParse(document);
  if (!parsed.success) return { valid: false, reason: 'not an A2S capability document' };
  if (!parsed.data.checksum) return { valid: false, reason: 'no checksum' };
  let expected: string;
  try {
    expected = await capabilityChecksum(document as Record<string, unknown>);
  } catch {
    return { valid: false, reason: 'holds values JSON cannot represent' };
  }
  return expected === parsed.data.checksum.toLowerCase()
    ? { valid: true }
    : { valid: false, reason: 'checksum does not match the content' };
}
