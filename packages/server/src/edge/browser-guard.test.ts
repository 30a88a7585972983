import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { browserGuard, crossSiteReason, isAllowedHost } from './browser-guard.js';

describe('isAllowedHost', () => {
  it.each([
    ['localhost:3001', []],
    ['127.0.0.1:9', []],
    ['[::1]:3001', []],
    ['LOCALHOST', []],
    ['api.example.com', ['api.example.com']],
    ['api.example.com:8443', ['api.example.com']],
    ['api.example.com:8443', ['api.example.com:8443']],
    ['anything.example', ['*']],
  ])('accepts %j with %j', (host, allowed) => {
    expect(isAllowedHost(host, allowed)).toBe(true);
  });

  it.each([
    [undefined, []],
    ['', []],
    ['rebind.attacker.example:3001', []],
    ['localhost.attacker.example', []],
    ['localhost.', []],
    ['x@localhost', []],
    ['127.0.0.2:3001', []],
    ['api.example.com:8443', ['api.example.com:443']],
    ['api.example.com.evil', ['api.example.com']],
  ])('refuses %j with %j', (host, allowed) => {
    expect(isAllowedHost(host, allowed)).toBe(false);
  });
});

const req = (headers: Record<string, string>) =>
  new Request('http://127.0.0.1:3001/tools', { method: 'POST', headers });

describe('crossSiteReason', () => {
  it('lets servers (no Origin, no Sec-Fetch-Site) and the own origin through', () => {
    expect(crossSiteReason(req({}))).toBeUndefined();
    expect(
      crossSiteReason(req({ host: '127.0.0.1:3001', origin: 'http://127.0.0.1:3001' })),
    ).toBeUndefined();
    expect(crossSiteReason(req({ 'sec-fetch-site': 'same-origin' }))).toBeUndefined();
    expect(crossSiteReason(req({ 'sec-fetch-site': 'none' }))).toBeUndefined();
    expect(
      crossSiteReason(req({ origin: 'https://app.example', 'sec-fetch-site': 'cross-site' }), [
        'https://app.example',
      ]),
    ).toBeUndefined();
  });

  it.each([
    [{ origin: 'https://evil.example' }],
    [{ origin: 'null' }],
    [{ origin: 'http://127.0.0.1:3002' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
  ])('refuses %j', (headers) => {
    expect(crossSiteReason(req(headers))).toMatch(/refused/);
  });

  it('refuses even the own origin where ownOrigin is false (the data plane)', () => {
    const own = req({ host: '127.0.0.1:3001', origin: 'http://127.0.0.1:3001' });
    expect(crossSiteReason(own, [], { ownOrigin: false })).toMatch(/refused/);
    expect(
      crossSiteReason(req({ 'sec-fetch-site': 'same-origin' }), [], { ownOrigin: false }),
    ).toMatch(/refused/);
  });
});

describe('browserGuard middleware', () => {
  const app = new Hono();
  app.use('*', browserGuard({ allowedHosts: () => ['tools.example.com'] }));
  app.post('/tools', (c) => c.json({ ok: true }));

  it('answers 403 forbidden for a rebound Host or a cross-site Origin, 200 otherwise', async () => {
    const good = await app.request('http://tools.example.com/tools', { method: 'POST' });
    expect(good.status).toBe(200);
    const local = await app.request('http://localhost:8080/tools', { method: 'POST' });
    expect(local.status).toBe(200);
    for (const [url, headers] of [
      ['http://rebind.attacker.example/tools', {}],
      ['http://tools.example.com/tools', { origin: 'https://evil.example' }],
      ['http://tools.example.com/tools', { 'sec-fetch-site': 'cross-site' }],
    ] as const) {
      const refused = await app.request(url, { method: 'POST', headers });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
  });
});
