/**
 * Checks the API reference of a built site the way a newcomer reads it: no page too big to
 * load and scroll through (one page for all of `@s2sp/server` was 286 KB), no link into
 * `node_modules` (a "Defined in" link to a file the repository does not hold), no "Edit this
 * page" on a generated page (it would open a file that does not exist), and each entry point's
 * page opening with the exports a reader starts from.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeEntities } from './site-links.js';

/** The largest page of the API reference, in bytes of HTML. */
export const MAX_API_PAGE_BYTES = 150_000;

/** Something a reader of the API reference would trip on. */
export interface ApiPageProblem {
  /** The page, relative to the site's root. */
  readonly page: string;
  readonly problem: string;
}

/** The HTML pages of the API reference (`api/**`), relative to the site's root. */
export function apiPages(site: string): string[] {
  return readdirSync(join(site, 'api'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.html') && statSync(join(site, 'api', file)).isFile())
    .map((file) => `api/${file.replaceAll('\\', '/')}`)
    .sort();
}

/**
 * The symbols an entry point's page shows, in its order: each one documented on the page (its
 * `<h3>`, `createS2SP()`) and each one in the first cell of a table row, linking to its own page
 * (`<tr><td><a id="s2sp"></a><a href="./server/interfaces/S2SP.html">`), not the links inside
 * the descriptions.
 */
export function listedSymbols(html: string): string[] {
  const start = html.indexOf('<main');
  const content = start === -1 ? html : html.slice(start, html.indexOf('</main>', start));
  return [
    ...content.matchAll(
      /<tr>\s*<td[^>]*>\s*(?:<a id="[^"]*"><\/a>\s*)?<a href="([^"]*)"|<h3\b[^>]*>([\s\S]*?)<\/h3>/g,
    ),
  ].flatMap(([, href, heading]) => {
    if (heading !== undefined) {
      const text = decodeEntities(
        heading.replace(/<a class="header-anchor"[\s\S]*?<\/a>/g, '').replace(/<[^>]+>/g, ''),
      )
        .replace(/\u200b/g, '')
        .trim()
        .replace(/\(\)$/, '');
      return text ? [text] : [];
    }
    const name = /\/([^/#]+)\.html(?:#|$)/.exec(decodeEntities(href ?? ''))?.[1];
    return name ? [decodeURIComponent(name)] : [];
  });
}

/**
 * Every problem of the API reference in the built site `site`. `startHere` maps an entry point's
 * import specifier to the exports its page must list first, in that order.
 */
export function checkApiPages(
  site: string,
  startHere: Readonly<Record<string, readonly string[]>>,
): ApiPageProblem[] {
  const problems: ApiPageProblem[] = [];
  for (const page of apiPages(site)) {
    const file = join(site, page);
    const bytes = statSync(file).size;
    if (bytes > MAX_API_PAGE_BYTES)
      problems.push({ page, problem: `${bytes} bytes, over ${MAX_API_PAGE_BYTES}` });
    const html = readFileSync(file, 'utf8');
    for (const href of [...html.matchAll(/\shref="([^"]*)"/g)].map(([, h = '']) => h))
      if (decodeEntities(href).includes('node_modules'))
        problems.push({ page, problem: `links into node_modules: ${href}` });
    // VitePress's default theme renders the link as `<a class="edit-link" …>` (its text is also in
    // the site's config on every page, so the text alone says nothing).
    if (/class="edit-link"/.test(html))
      problems.push({ page, problem: 'has an "Edit this page" link' });
  }
  for (const [specifier, first] of Object.entries(startHere)) {
    const page = `api/${specifier}.html`;
    let html: string;
    try {
      html = readFileSync(join(site, page), 'utf8');
    } catch {
      problems.push({ page, problem: 'missing' });
      continue;
    }
    const listed = listedSymbols(html).slice(0, first.length);
    if (listed.join() !== first.join())
      problems.push({
        page,
        problem: `lists ${listed.join(', ') || 'nothing'} first, not ${first.join(', ')}`,
      });
  }
  return problems;
}
