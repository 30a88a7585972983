import { codeAndDataOf } from '@s2sp/test-utils';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { bearerAuth, createBearerCheck } from './bearer-auth.js';

const TOKEN = 'a-long-enough-token-0123456789';

function appWith(options: Parameters<typeof bearerAuth>[0]) {
  const app = new Hono();
  app.use('*', bearerAuth(options));
  app.get('/who', (c) => c.json({ auth: c.get('s2spAuth' as never) }));
  return app;
}

const get = (app: Hono, authorization?: string) =>
  app.request('http://localhost/who', {
    headers: authorization === undefined ? {} : { authorization },
  });

describe('bearerAuth', () => {
  it('lets a configured token through and sets s2spAuth', async () => {
    const response = await get(appWith({ bearerTokens: [TOKEN] }), `Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      auth: { token: TOKEN, clientId: 'bearer-token-1', scopes: [] },
    });
  });

  it('answers 401 unauthorized with a Bearer challenge; error="invalid_token" only for a presented token', async () => {
    const app = appWith({ bearerTokens: [TOKEN], resourceMetadataUrl: 'https://a.example/meta' });
    const missing = await get(app);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(missing.headers.get('www-authenticate')).toBe(
      'Bearer realm="s2sp", resource_metadata="https://a.example/meta"',
    );
    for (const header of [
      `Bearer ${TOKEN}x`,
      `Basic ${TOKEN}`,
      'Bearer',
      `Bearer ${TOKEN} extra`,
    ]) {
      const wrong = await get(app, header);
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="s2sp", error="invalid_token"/,
      );
    }
  });

  it('asks the verifier for other tokens, and refuses expired, refused and throwing ones', async () => {
    const app = appWith({
      verifyToken: (token) => {
        if (token === 'verified-token-0123456789')
          return { token, clientId: 'c1', scopes: ['read'] };
        if (token === 'expired-token-0123456789')
          return { token, clientId: 'c2', scopes: [], expiresAt: Date.now() / 1000 - 1 };
        if (token === 'throwing-token-0123456789') throw new Error('introspection down');
        return undefined;
      },
    });
    const ok = await get(app, 'Bearer verified-token-0123456789');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { auth: { clientId: string } }).auth.clientId).toBe('c1');
    for (const token of [
      'expired-token-0123456789',
      'throwing-token-0123456789',
      'nope-0123456789abcdef',
    ])
      expect((await get(app, `Bearer ${token}`)).status).toBe(401);
  });

  it('refuses options that cannot work', () => {
    for (const options of [
      {},
      { bearerTokens: ['short'] },
      { bearerTokens: ['has spaces in it, sixteen+'] },
    ]) {
      expect(codeAndDataOf(() => createBearerCheck(options))).toEqual([
        'invalid_config',
        { option: 'bearerTokens' },
      ]);
    }
  });
});
