import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkApiPages, listedSymbols, MAX_API_PAGE_BYTES } from './api-pages.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A small built site: `files` maps each path to its HTML. */
async function site(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'api-pages-'));
  for (const [path, html] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), html);
  }
  return dir;
}

const row = (href: string, text: string) =>
  `<tr><td><a href="${href}">${text}</a></td><td>It does <a href="./x/interfaces/Other.html">Other</a> things.</td></tr>`;
const ENTRY = `<main><table>${row('./x/functions/createX.html', 'createX')}${row('./x/functions/aHelper.html', 'aHelper')}</table></main>`;

describe('checkApiPages', () => {
  it('accepts small pages that open with their entry points, with no edit link and no node_modules link', async () => {
    const root = await site({
      'api/@s2sp/x.html': ENTRY,
      'api/@s2sp/x/functions/createX.html':
        '<main><a href="https://github.com/s2sp/s2sp-typescript/blob/main/packages/x/src/x.ts#L1">x.ts</a></main>',
      'guide/x.html': '<a class="edit-link" href="https://example.com/edit">Edit this page</a>',
    });
    expect(checkApiPages(root, { '@s2sp/x': ['createX'] })).toEqual([]);
  });

  it('reports a page over the limit, a link into node_modules, an edit link and entry points listed late', async () => {
    const root = await site({
      'api/@s2sp/x.html': `<main><table>${row('./x/functions/aHelper.html', 'aHelper')}${row('./x/functions/createX.html', 'createX')}</table></main>`,
      'api/@s2sp/x/functions/big.html': 'x'.repeat(MAX_API_PAGE_BYTES + 1),
      'api/@s2sp/x/interfaces/Disposable.html':
        '<a href="https://github.com/s2sp/s2sp-typescript/blob/main/node_modules/typescript/lib/lib.es5.d.ts#L1">lib</a>' +
        '<a class="edit-link" href="https://github.com/s2sp/s2sp-typescript/edit/main/docs/api/x.md">Edit this page</a>',
    });
    expect(checkApiPages(root, { '@s2sp/x': ['createX'], '@s2sp/y': ['createY'] })).toEqual([
      {
        page: 'api/@s2sp/x/functions/big.html',
        problem: `${MAX_API_PAGE_BYTES + 1} bytes, over ${MAX_API_PAGE_BYTES}`,
      },
      {
        page: 'api/@s2sp/x/interfaces/Disposable.html',
        problem:
          'links into node_modules: https://github.com/s2sp/s2sp-typescript/blob/main/node_modules/typescript/lib/lib.es5.d.ts#L1',
      },
      { page: 'api/@s2sp/x/interfaces/Disposable.html', problem: 'has an "Edit this page" link' },
      { page: 'api/@s2sp/x.html', problem: 'lists aHelper first, not createX' },
      { page: 'api/@s2sp/y.html', problem: 'missing' },
    ]);
  });

  it('reads the symbols of the headings and the tables’ first cells, not the links in the descriptions', () => {
    expect(listedSymbols(ENTRY)).toEqual(['createX', 'aHelper']);
    const page =
      '<nav><h3>Menu</h3></nav><main><h2>Start here</h2>' +
      '<h3 id="createx" tabindex="-1">createX() <a class="header-anchor" href="#createx">\u200b</a></h3>' +
      `<p>See <a href="./x/interfaces/Other.html">Other</a>.</p><h2>Interfaces</h2><table>${row('./x/interfaces/XOptions.html', 'XOptions')}` +
      '<tr><td><a id="xstore"></a><a href="./x/interfaces/XStore.html">XStore</a></td><td>A store.</td></tr></table></main>';
    expect(listedSymbols(page)).toEqual(['createX', 'XOptions', 'XStore']);
  });
});
