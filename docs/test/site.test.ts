/**
 * The documentation site, built once as `pnpm docs:build` builds it: its links and anchors resolve,
 * the pages included from the repository's files hold those files, the API reference has a page
 * for every public entry point listing every export, each page of it under 150 KB and opening
 * with the entry points, none linking into node_modules or offering "Edit this page", and the key pages load in headless
 * Chromium with no console error, no request to another origin, and highlighted code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicEntryPoints, START_HERE } from '../typedoc.config.mjs';
import { apiPages, checkApiPages, listedSymbols } from './api-pages.js';
import { buildSite, ROOT } from './build-site.js';
import { checkSiteLinks, decodeEntities, idsOf } from './site-links.js';
import { serveStaticSite } from './static-site.js';

let site: string;
beforeAll(async () => {
  site = await mkdtemp(join(tmpdir(), 's2sp-docs-'));
  const took = await buildSite(site);
  console.log(
    `docs site built in ${((took.apiMs + took.siteMs) / 1000).toFixed(1)} s (API reference ${(took.apiMs / 1000).toFixed(1)} s, VitePress ${(took.siteMs / 1000).toFixed(1)} s)`,
  );
});
afterAll(async () => {
  if (site) await rm(site, { recursive: true, force: true });
});

const page = (path: string) => readFileSync(join(site, path), 'utf8');

/** The text of every `<hN>` of a page's content (not its sidebar), without its permalink anchor. */
function headings(html: string, level: number): string[] {
  const content = html.slice(html.indexOf('<main'), html.indexOf('</main>'));
  return [...content.matchAll(new RegExp(`<h${level}\\b[^>]*>([\\s\\S]*?)</h${level}>`, 'g'))].map(
    ([, inner = '']) =>
      decodeEntities(
        inner.replace(/<a class="header-anchor"[\s\S]*?<\/a>/g, '').replace(/<[^>]+>/g, ''),
      )
        .replace(/\u200b/g, '')
        .trim(),
  );
}

/** The `#`-headings of a Markdown file outside its code blocks, as the page shows their text. */
function markdownHeadings(markdown: string, level: number): string[] {
  let fenced = false;
  const found: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && line.startsWith(`${'#'.repeat(level)} `))
      found.push(
        line
          .slice(level + 1)
          .replace(/`/g, '')
          .trim(),
      );
  }
  return found;
}

describe('the documentation site', () => {
  it('has no internal link or anchor that does not resolve', () => {
    const { checked, problems } = checkSiteLinks(site);
    expect(problems).toEqual([]);
    // Every page links its sidebar, so a site this size has thousands: a low count means the
    // checker found no links at all.
    expect(checked).toBeGreaterThan(5_000);
  });

  it('includes the protocol, the benchmarks and the reliability figures from their files', () => {
    for (const [html, file] of [
      ['protocol.html', 'packages/core/PROTOCOL.md'],
      ['benchmarks.html', 'bench/BENCHMARKS.md'],
      ['reliability.html', 'RELIABILITY.md'],
    ] as const) {
      const markdown = readFileSync(join(ROOT, file), 'utf8');
      expect(headings(page(html), 1), html).toEqual(markdownHeadings(markdown, 1));
      expect(headings(page(html), 2), html).toEqual(markdownHeadings(markdown, 2));
      expect(headings(page(html), 2).length, html).toBeGreaterThan(5);
    }
  });

  it('shows the example files it imports, and only the regions it names', () => {
    const firstServer = page('guide/first-server.html');
    expect(firstServer).toContain('createS2SP');
    expect(firstServer).toContain('compilerOptions');
    expect(firstServer).not.toContain('Code snippet path not found');
    const agents = page('guide/agent-frameworks.html');
    // Six frameworks, each the `readme` region of its example file: a region that VitePress
    // cannot find would show the whole file, markers and preamble included.
    expect(agents.match(/withS2SP/g)?.length).toBeGreaterThan(6);
    for (const html of [
      'guide/agent-frameworks.html',
      'guide/server.html',
      'guide/first-server.html',
      'examples.html',
    ]) {
      expect(page(html), html).not.toMatch(/#(end)?region|Code snippet path not found/);
    }
  });

  it('shows the Claude Desktop configuration the root README holds and its test runs', () => {
    const block = (markdown: string) =>
      /<!-- claude-desktop-config[^>]*-->\s*```json\n([\s\S]*?)```/.exec(markdown)?.[1];
    const readme = block(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(readme).toBeDefined();
    expect(block(readFileSync(join(ROOT, 'docs/guide/claude-desktop.md'), 'utf8'))).toBe(readme);
  });

  it('has an API page for every public entry point, listing every export with a page of its own', () => {
    const entries = publicEntryPoints();
    expect(entries.length).toBeGreaterThan(20);
    for (const { specifier, file } of entries) {
      const html = `api/${specifier}.html`;
      expect(existsSync(join(site, html)), html).toBe(true);
      expect(headings(page(html), 1)).toEqual([specifier]);
      const ids = idsOf(page(html));
      // Each src/index.ts is an explicit list of named exports (CONTRIBUTING.md).
      const source = readFileSync(file, 'utf8');
      const names = [
        ...[...source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap(([, list = '']) =>
          list
            .split(',')
            .map((item) => item.replace(/^\s*type\s+/, '').trim())
            .filter((item) => item !== '')
            .map((item) => item.split(/\s+as\s+/).pop() as string),
        ),
        ...[
          ...source.matchAll(
            /export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g,
          ),
        ].map(([, name = '']) => name),
      ];
      expect(names.length, file).toBeGreaterThan(0);
      // Each export is a row of the page's tables linking to its own page (the link checker
      // above finds those pages), or, re-exported from another entry point, a heading.
      const listed = new Set(listedSymbols(page(html)));
      const missing = names.filter(
        (name) => !listed.has(name) && !ids.has(name.toLowerCase().replace(/_+/g, '-')),
      );
      expect(missing, html).toEqual([]);
    }
  });

  it('keeps the API reference readable: pages under 150 KB, entry points first, no link that cannot work', () => {
    expect(apiPages(site).length).toBeGreaterThan(100);
    expect(checkApiPages(site, START_HERE)).toEqual([]);
    // The check sees an edit link where there is one: the written pages keep theirs.
    expect(page('guide/server.html')).toMatch(/class="edit-link"/);
  });

  it('loads the key pages in headless Chromium: no console error, nothing from another origin, highlighted code', async () => {
    await using server = await serveStaticSite(site);
    await using browser = await launchChromium();
    const context = await browser.newContext();
    const elsewhere: string[] = [];
    // The site must need nothing from another origin (no remote fonts, no analytics).
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(server.url)) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${tab.url()}: ${message.text()}`);
    });
    tab.on('pageerror', (error) => errors.push(`${tab.url()}: ${error.message}`));
    tab.on('requestfailed', (request) => {
      // Leaving a page aborts the prefetches of the pages it links to: that is no failure.
      const reason = request.failure()?.errorText;
      if (request.url().startsWith(server.url) && reason !== 'net::ERR_ABORTED')
        errors.push(`${request.url()}: ${reason}`);
    });
    tab.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.url()}: ${response.status()}`);
    });

    for (const [path, title] of [
      ['/', 'S2SP for TypeScript'],
      ['/guide/quick-start.html', 'Quick start'],
      ['/guide/server.html', 'Add S2SP to your server'],
      ['/guide/server-sdk-v2.html', 'Add S2SP to your server: MCP SDK v2'],
      ['/protocol.html', 'S2SP wire protocol'],
      ['/api/@s2sp/server.html', '@s2sp/server'],
    ] as const) {
      await tab.goto(`${server.url}${path}`, { waitUntil: 'load' });
      const heading = path === '/' ? tab.locator('.VPHero .name') : tab.locator('.vp-doc h1');
      const text = (await heading.first().textContent()) ?? '';
      // The heading's permalink anchor holds a zero-width space.
      expect(text.replace(/\u200b/g, '').trim()).toBe(title);
      if (path === '/') continue;
      // Highlighted: Shiki wrote each token's colour, and the tokens of a block do not all
      // share one colour.
      const colours = await tab
        .locator('.vp-doc div[class*="language-"] pre code')
        .first()
        .evaluate((code) =>
          Array.from(code.querySelectorAll('span.line > span')).map(
            (span) => getComputedStyle(span).color,
          ),
        );
      expect(colours.length, path).toBeGreaterThan(3);
      expect(new Set(colours).size, path).toBeGreaterThan(1);
    }
    // The SDK v2 page shows v2 and v1 side by side as tabs of one code group.
    await tab.goto(`${server.url}/guide/server-sdk-v2.html`, { waitUntil: 'load' });
    expect(await tab.locator('.vp-code-group .tabs label').allTextContents()).toEqual([
      'SDK v2',
      'SDK v1',
    ]);
    await tab.locator('.vp-code-group .tabs label', { hasText: 'SDK v1' }).click();
    await expect
      .poll(() => tab.locator('.vp-code-group div.active').textContent())
      .toContain('@modelcontextprotocol/sdk/server/mcp.js');

    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
});
