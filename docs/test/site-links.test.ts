import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSiteLinks, decodeEntities } from './site-links.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A small built site: `files` maps each path to its HTML. */
async function site(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'site-links-'));
  for (const [path, html] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), html);
  }
  return dir;
}

describe('checkSiteLinks', () => {
  it('accepts links to pages, folders, assets and anchors that exist', async () => {
    const root = await site({
      'index.html':
        '<p id="top"></p><a href="/guide/a.html#b%C3%A4r">a</a><a href="./guide/">g</a>' +
        '<a href="#top">t</a><script src="/assets/app.js"></script>' +
        '<a href="https://example.com/x#y">x</a><a href="mailto:a@example.com">m</a>',
      'guide/a.html':
        '<h2 id="bär">Bär</h2><a href="../index.html#top">up</a><a href="a#b&#228;r">x</a>',
      'guide/index.html': '<p></p>',
      'assets/app.js': '',
    });
    // Four links on the index (not the external two), two on guide/a.html.
    expect(checkSiteLinks(root)).toEqual({ checked: 6, problems: [] });
  });

  it('reports a missing page, a missing anchor and a link outside the base', async () => {
    const root = await site({
      'index.html':
        '<a href="/docs/missing.html">m</a><a href="/docs/a.html#nowhere">n</a>' +
        '<a href="/other/a.html">o</a><a href="a.html#somewhere">ok</a>',
      'a.html': '<h2 id="somewhere">S</h2>',
    });
    expect(checkSiteLinks(root, '/docs/')).toEqual({
      checked: 4,
      problems: [
        { page: 'index.html', href: '/docs/missing.html', reason: 'no such page' },
        { page: 'index.html', href: '/docs/a.html#nowhere', reason: 'no such anchor' },
        { page: 'index.html', href: '/other/a.html', reason: 'outside the base' },
      ],
    });
  });

  it('decodes the entities attributes are written with', () => {
    expect(decodeEntities('a&amp;b &quot;c&quot; &#228; &#xE4; &unknown;')).toBe(
      'a&b "c" ä ä &unknown;',
    );
  });
});
