/**
 * Checks the links of a built static site the way a reader follows them: every internal `href`
 * (and `src`) must name a file of the site, and every `#fragment` an `id` on the page it points
 * to. External links (`http:`, `https:`, `mailto:`) are not followed: the tests have no network.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A link that does not resolve. */
export interface LinkProblem {
  /** The page holding the link, relative to the site's root. */
  readonly page: string;
  /** The link as written. */
  readonly href: string;
  readonly reason: 'no such page' | 'no such anchor' | 'outside the base';
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) =>
    statSync(join(dir, file)).isFile(),
  );
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** The text an HTML attribute value stands for. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/** The ids an HTML page defines. */
export function idsOf(html: string): Set<string> {
  return new Set(
    [...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? '')),
  );
}

/** The site file a path below the base stands for: `x.html`, `x/index.html`, or `x` as it is. */
function siteFile(dir: string, path: string): string | undefined {
  const candidates = path.endsWith('/')
    ? [`${path}index.html`]
    : [path, `${path}.html`, `${path}/index.html`];
  return candidates.find((candidate) => {
    const file = join(dir, candidate);
    return existsSync(file) && statSync(file).isFile();
  });
}

/**
 * Checks every internal link of the site built into `dir`, served under `base` (`/`, or
 * `/repository/` on GitHub Pages). Returns the number of links checked and the ones that do not
 * resolve.
 */
export function checkSiteLinks(
  dir: string,
  base = '/',
): { checked: number; problems: LinkProblem[] } {
  const pages = filesUnder(dir).filter((file) => file.endsWith('.html'));
  const idCache = new Map<string, Set<string>>();
  const idsOfFile = (file: string) => {
    const cached = idCache.get(file);
    if (cached) return cached;
    const ids = idsOf(readFileSync(join(dir, file), 'utf8'));
    idCache.set(file, ids);
    return ids;
  };
  const problems: LinkProblem[] = [];
  let checked = 0;
  for (const page of pages) {
    const html = readFileSync(join(dir, page), 'utf8');
    const pageUrl = new URL(`http://site${base}${page}`);
    const links = [...html.matchAll(/<(?:a|link|script|img)\b[^>]*?\s(?:href|src)="([^"]*)"/g)];
    for (const [, raw = ''] of links) {
      const href = decodeEntities(raw);
      if (href === '' || href === '#' || /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(href)) continue;
      checked++;
      const url = new URL(href, pageUrl);
      if (!url.pathname.startsWith(base)) {
        problems.push({ page, href, reason: 'outside the base' });
        continue;
      }
      const target = siteFile(dir, decodeURIComponent(url.pathname.slice(base.length)));
      if (target === undefined) {
        problems.push({ page, href, reason: 'no such page' });
        continue;
      }
      const anchor = decodeURIComponent(url.hash.slice(1));
      if (anchor !== '' && target.endsWith('.html') && !idsOfFile(target).has(anchor))
        problems.push({ page, href, reason: 'no such anchor' });
    }
  }
  return { checked, problems };
}
