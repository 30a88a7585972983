import { describe, expect, it } from 'vitest';
import { CLIENT_KEY_SECRET, createClientKeys } from './client-keys.js';
import { GATEWAY_PARTS } from './tables/s2sp-call.js';

const A = 'token-aaaaaaaaaaaaaaaa';
const B = 'token-bbbbbbbbbbbbbbbb';
const holder = (token: string, clientId = 'bearer-token-1') => ({ authInfo: { token, clientId } });

describe('createClientKeys', () => {
  it('names a static token’s holder by a keyed hash of the token, never its position', () => {
    const keys = createClientKeys([A, B], GATEWAY_PARTS);
    const a = keys.of(holder(A, 'bearer-token-1'));
    expect(a).toMatch(/^token:[A-Za-z0-9_-]{32}$/);
    expect(a).not.toContain(A);
    // The same position, another token: another client.
    expect(keys.of(holder(B, 'bearer-token-1'))).not.toBe(a);
    expect(keys.of(holder(A, 'bearer-token-2'))).toBe(a);
  });

  it('maps a token to the same key across restarts that keep the secret, not otherwise', () => {
    const first = createClientKeys([A, B], GATEWAY_PARTS);
    const secret = first.secret();
    expect(secret).toMatch(CLIENT_KEY_SECRET);
    const restarted = createClientKeys([B, A], GATEWAY_PARTS);
    expect(restarted.of(holder(A))).not.toBe(first.of(holder(A)));
    restarted.useSecret(secret);
    expect(restarted.of(holder(A, 'bearer-token-2'))).toBe(first.of(holder(A, 'bearer-token-1')));
  });

  it('leaves a verified client, an address or a session to clientKey', () => {
    const keys = createClientKeys([A], GATEWAY_PARTS);
    // A token a verifier accepted: its client id says who it is.
    expect(keys.of({ authInfo: { token: 'jwt-of-someone', clientId: 'alice' } })).toBe(
      'client:alice',
    );
    expect(keys.of({ sessionId: 's1' })).toBe('session:s1');
    expect(keys.of({})).toBe('anonymous');
  });
});
