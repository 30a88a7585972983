// The data plane's Node front door (node-front-door.ts, front-door-routes.ts) reads what Hono does
// not document: `app.routes` with each route's `handler`, `app.errorHandler`, `app.getPath`, and
// the `COMPOSED_HANDLER` key under which `app.route()` keeps a sub-app's handler. A Hono release
// that renames or reshapes any of them would silently turn the fast path off; these tests fail
// instead, on the Hono installed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStore } from '@s2sp/core/store';
import { Hono } from 'hono';
import { COMPOSED_HANDLER } from 'hono/utils/constants';
import { getPath, getPathNoStrict } from 'hono/utils/url';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataPlaneApp } from './data-plane.js';
import { intact, soleDataPlane } from './front-door-routes.js';
import { nodeFrontDoor } from './node-front-door.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A loopback server that answers 599 whenever the front door leaves a request to the app. */
async function doorServer(app: Hono): Promise<string> {
  const door = nodeFrontDoor(app);
  const server = createServer((request, response) => {
    if (door(request, response)) return;
    response.writeHead(599).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("Hono's private members the Node front door reads", () => {
  it('routes list each handler; errorHandler is a function onError replaces', () => {
    const app = new Hono();
    const handler = () => new Response('ok');
    app.post('/x/:id', handler);
    expect(app.routes).toEqual([
      expect.objectContaining({ method: 'POST', path: '/x/:id', handler }),
    ]);
    const before = (app as unknown as { errorHandler: unknown }).errorHandler;
    expect(typeof before).toBe('function');
    const onError = () => new Response('error', { status: 500 });
    app.onError(onError);
    expect((app as unknown as { errorHandler: unknown }).errorHandler).toBe(onError);
  });

  it('getPath is the exported getPath (getPathNoStrict with strict: false)', () => {
    expect(new Hono().getPath).toBe(getPath);
    expect(new Hono({ strict: false }).getPath).toBe(getPathNoStrict);
  });

  it('app.route() keeps a sub-app with its own error handler under COMPOSED_HANDLER', () => {
    expect(typeof COMPOSED_HANDLER === 'string' || typeof COMPOSED_HANDLER === 'symbol').toBe(true);
    const child = new Hono();
    const handler = () => new Response('ok');
    child.post('/y', handler);
    child.onError(() => new Response('error', { status: 500 }));
    const parent = new Hono().route('/', child);
    expect(parent.routes).toHaveLength(1);
    const [route] = parent.routes as [(typeof parent.routes)[number]];
    expect(route.path).toBe('/y');
    expect((route.handler as unknown as Record<PropertyKey, unknown>)[COMPOSED_HANDLER]).toBe(
      handler,
    );
  });
});

describe('the fast path is taken on the installed Hono', () => {
  it('for the data plane app, and for it mounted with app.route()', async () => {
    const dataPlane = createDataPlaneApp({ store: createMemoryStore() });
    const mounted = new Hono().route('/', dataPlane);
    for (const app of [dataPlane, mounted]) {
      const door = soleDataPlane(app);
      expect(door).toBeDefined();
      expect(door && intact(door)).toBe(true);
      // An unknown token: the front door answers it (the store's 404), not the app (599).
      const base = await doorServer(app);
      const response = await fetch(`${base}/s2sp/data/${'A'.repeat(43)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).not.toBe(599);
      expect(response.status).toBe(404);
    }
  });

  it('and not once a user route could take the request (the bad input beside the good)', async () => {
    const app = new Hono().route('/', createDataPlaneApp({ store: createMemoryStore() }));
    app.post('/:anything/*', () => new Response('mine'));
    expect(soleDataPlane(app)).toBeUndefined();
    const base = await doorServer(app);
    const response = await fetch(`${base}/s2sp/data/${'A'.repeat(43)}`, {
      method: 'POST',
      body: '{}',
    });
    expect(response.status).toBe(599);
  });
});
