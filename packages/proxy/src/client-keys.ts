/**
 * Who a downstream client is, for what the proxy keeps per client and across restarts (learned
 * columns, and with them `--state`; the per-client limits follow the same key). It is
 * `clientKey` from `@s2sp/server` — the verified client id, else the address — except for a
 * holder of one of the operator's static bearer tokens, whose client id there is only the
 * token's position in the list (`bearer-token-2`): after a restart with another list, another
 * token's holder would be in that position and get what the first one taught the proxy. Such a
 * client is its token instead: `token:` and an HMAC-SHA-256 of the token under a secret the state
 * file keeps, so the same token is the same client across restarts, another token never is, and
 * the file holds no token (nor a hash anyone can check guesses against without the secret).
 *
 * @module
 */

import { createHmac, randomBytes } from 'node:crypto';
import type { GatewayParts, ToolCall } from './tables/s2sp-call.js';

/** Bytes of the secret. */
const SECRET_BYTES = 32;

/** The secret as the state file keeps it: base64url of {@link SECRET_BYTES} bytes. */
export const CLIENT_KEY_SECRET = /^[A-Za-z0-9_-]{43}$/;

/** The proxy's client keys. */
export interface ClientKeys {
  /** The key of the client making a request. */
  of(source: ToolCall): string;
  /** The secret, for the state file ({@link CLIENT_KEY_SECRET}). */
  secret(): string;
  /** Takes the secret a state file kept (a new one is made at creation). */
  useSecret(secret: string): void;
}

/**
 * Creates the client keys.
 *
 * @param staticTokens - the operator's static bearer tokens (the edge's `auth.bearerTokens`)
 * @param parts - the servers' reading of a call and their client key (`GATEWAY_PARTS`)
 */
export function createClientKeys(
  staticTokens: readonly string[],
  parts: Pick<GatewayParts, 'clientKey' | 'readToolCall'>,
): ClientKeys {
  const { clientKey, readToolCall } = parts;
  const tokens = new Set(staticTokens);
  let secret = randomBytes(SECRET_BYTES);
  // One HMAC per token and secret: a token is checked on every request.
  let known = new Map<string, string>();
  return {
    of(source) {
      const { token } = readToolCall(source);
      if (token === undefined || !tokens.has(token)) return clientKey(source);
      let key = known.get(token);
      if (key === undefined) {
        key = `token:${createHmac('sha256', secret).update(token).digest('base64url').slice(0, 32)}`;
        known.set(token, key);
      }
      return key;
    },
    secret: () => secret.toString('base64url'),
    useSecret(text) {
      secret = Buffer.from(text, 'base64url');
      known = new Map();
    },
  };
}
