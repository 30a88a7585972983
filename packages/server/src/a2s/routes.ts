import { S2SPError } from '@s2sp/core';
import type { Hono } from 'hono';
import type { A2SCapability } from './schemas.js';
import { toYaml } from './yaml.js';

/**
 * Serves capability documents at `GET /.well-known/a2s/capabilities` (a list of name,
 * description, version, checksum and URL) and `GET /.well-known/a2s/capabilities/:name` (the
 * document: YAML when `Accept` asks for YAML, JSON otherwise).
 *
 * @param app - the app to add the routes to
 * @param capabilities - the sealed documents, or a function giving them (called per request, so
 *   documents can use addresses known only after `listen()`)
 */
export function mountA2S(
  app: Hono,
  capabilities:
    | readonly A2SCapability[]
    | (() => readonly A2SCapability[] | Promise<readonly A2SCapability[]>),
): void {
  const load = async () =>
    typeof capabilities === 'function' ? await capabilities() : capabilities;
  const base = '/.well-known/a2s/capabilities';
  app.get(base, async (c) => {
    const docs = await load();
    return c.json({
      capabilities: docs.map((d) => ({
        name: d.name,
        description: d.description,
        version: d.version,
        checksum: d.checksum,
        url: `${base}/${encodeURIComponent(d.name)}`,
      })),
    });
  });
  app.get(`${base}/:name`, async (c) => {
    const doc = (await load()).find((d) => d.name === c.req.param('name'));
    if (!doc)
      throw new S2SPError(
        'not_found',
        `No A2S capability named "${c.req.param('name')}". GET ${base} lists them.`,
      );
    const accept = c.req.header('accept') ?? '';
    if (/\b(application|text)\/(x-)?yaml\b/.test(accept)) {
      return c.body(`${toYaml(doc)}\n`, 200, { 'content-type': 'application/yaml; charset=utf-8' });
    }
    return c.json(doc);
  });
}
