/**
 * What a newcomer reads first about each published package, its README (on npm and GitHub): at
 * most 200 lines, an install line with every `@s2sp/*` package it needs (none of them is on the
 * registry yet, so a missing one is a 404), a first sample that stands on its own, and links that
 * lead somewhere. The long form lives in the guide pages of the site.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './build-site.js';

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly dependencies?: Record<string, string>;
}

const manifests = new Map<string, { dir: string; manifest: Manifest }>();
for (const dir of readdirSync(join(ROOT, 'packages'))) {
  const file = join(ROOT, 'packages', dir, 'package.json');
  if (!existsSync(file)) continue;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  if (!manifest.private)
    manifests.set(manifest.name, { dir: join(ROOT, 'packages', dir), manifest });
}
const published = [...manifests.keys()].sort();

/** The package and every `@s2sp/*` package it depends on, directly or through another. */
function needs(name: string): string[] {
  const found = new Set([name]);
  for (const each of found)
    for (const dep of Object.keys(manifests.get(each)?.manifest.dependencies ?? {}))
      if (manifests.has(dep)) found.add(dep);
  return [...found].sort();
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = fence ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading?.[1]) found.add(slug(heading[1]));
  }
  return found;
}

function readme(name: string): { path: string; text: string } {
  const entry = manifests.get(name);
  if (!entry) throw new Error(`no package ${name}`);
  const path = join(entry.dir, 'README.md');
  return { path, text: readFileSync(path, 'utf8') };
}

/** The sentence that comes first, before every install line. */
const NOT_ON_NPM =
  'Not on npm yet: until the first release, install the tarballs packed from a clone';

/**
 * The first install line of a page that installs an `@s2sp/*` package: it must install the packed
 * tarballs (the packages answer 404 on npm until the first release), right after the one sentence
 * that says so, and no line may install `@s2sp/*` by name. Returns the packages its tarballs are of.
 */
function installLine(markdown: string): { problems: string[]; installed: string[] } {
  const lines = markdown.split('\n');
  const problems = lines
    .filter((line) => /^(npm install|npx -y) @s2sp\//.test(line))
    .map((line) => `installs by name, which answers 404: ${line}`);
  const at = lines.findIndex((line) => line.startsWith('npm install') && line.includes('s2sp'));
  if (at === -1) return { problems: [...problems, 'no install line'], installed: [] };
  const fence = lines.slice(0, at).findLastIndex((line) => line.startsWith('```'));
  const before = lines.slice(0, fence).findLast((line) => line.trim() !== '') ?? '';
  const paragraph = lines
    .slice(0, fence)
    .join('\n')
    .trimEnd()
    .split(/\n\s*\n/)
    .at(-1)
    ?.replace(/\s*\n\s*/g, ' ');
  if (!paragraph?.startsWith(NOT_ON_NPM))
    problems.push(
      `the paragraph before the install line does not start "${NOT_ON_NPM}": ${before}`,
    );
  const installed = [
    ...(lines[at] ?? '').matchAll(/\/path\/to\/s2sp-typescript\/packs\/s2sp-([a-z-]+?)-\*\.tgz/g),
  ].map((match) => `@s2sp/${match[1]}`);
  if (installed.length === 0) problems.push(`installs no tarball: ${lines[at]}`);
  return { problems, installed };
}

describe('the published packages’ READMEs', () => {
  it('are the five @s2sp packages', () => {
    expect(published).toEqual([
      '@s2sp/cache-redis',
      '@s2sp/client',
      '@s2sp/core',
      '@s2sp/proxy',
      '@s2sp/server',
    ]);
  });

  it.each(published)('%s: at most 200 lines', (name) => {
    expect(readme(name).text.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it.each(published)(
    '%s: installs what works today, the tarballs of every @s2sp package it needs',
    (name) => {
      const { problems, installed } = installLine(readme(name).text);
      expect(problems).toEqual([]);
      expect(needs(name).filter((each) => !installed.includes(each))).toEqual([]);
    },
  );

  it.each(published)('%s: the first TypeScript sample stands on its own', (name) => {
    const lines = readme(name).text.split('\n');
    const at = lines.findIndex((line) => /^```(ts|typescript)$/.test(line));
    expect(at, 'no ```ts sample').toBeGreaterThan(0);
    const marker = lines[at - 1] ?? '';
    expect(marker).not.toMatch(/^<!-- assume:/);
    const example = /^<!-- example: ([^\s#]+)(?:#(\S+))? -->$/.exec(marker);
    if (example?.[1]) {
      const source = readFileSync(join(manifests.get(name)?.dir ?? '', example[1]), 'utf8');
      const preamble = example[2]
        ? source.slice(0, source.indexOf(`// #region ${example[2]}`))
        : '';
      expect(preamble).not.toMatch(/^declare /m);
    }
  });

  it.each(published)('%s: every relative link reaches a file, and its anchor a heading', (name) => {
    const { path, text } = readme(name);
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!target || /^[a-z]+:/.test(target)) continue;
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? path : resolve(dirname(path), file);
      if (!existsSync(resolved)) broken.push(`${target}: no such file`);
      else if (anchor && resolved.endsWith('.md'))
        if (!anchors(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${target}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('the root README installs each with the tarballs of every @s2sp package it needs', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /<!-- install:[^\n]*\n```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
    const lines = block.trim().split('\n');
    const installed = lines.map((line) =>
      [...line.matchAll(/\/s2sp-([a-z-]+?)-\*\.tgz/g)].map((match) => `@s2sp/${match[1]}`).sort(),
    );
    expect(installed).toEqual(
      ['@s2sp/core', '@s2sp/server', '@s2sp/client', '@s2sp/cache-redis', '@s2sp/proxy'].map(needs),
    );
  });

  it('.changeset/README.md names every published package', () => {
    const text = readFileSync(join(ROOT, '.changeset', 'README.md'), 'utf8');
    for (const name of published) expect(text).toContain(`\`${name}\``);
    expect(text).not.toMatch(/\bfour packages\b/);
  });
});

describe('the guides that install packages', () => {
  it.each([
    ['docs/guide/server.md', '@s2sp/server'],
    ['docs/guide/server-sdk-v2.md', '@s2sp/server'],
    ['docs/guide/agent-frameworks.md', '@s2sp/client'],
    ['docs/guide/redis.md', '@s2sp/cache-redis'],
    ['docs/guide/proxy.md', '@s2sp/proxy'],
  ])('%s: installs what works today, as the package READMEs do', (page, pkg) => {
    const { problems, installed } = installLine(readFileSync(join(ROOT, page), 'utf8'));
    expect(problems).toEqual([]);
    expect(needs(pkg).filter((each) => !installed.includes(each))).toEqual([]);
  });

  it('notices a page that installs by name first', () => {
    const page = `${NOT_ON_NPM}:\n\n\`\`\`sh\nnpm install @s2sp/core @s2sp/server\n\`\`\`\n`;
    const { problems, installed } = installLine(page);
    expect(problems).toHaveLength(2);
    expect(installed).toEqual([]);
  });

  it('the install page holds the root README’s install lines', () => {
    const block = (markdown: string) =>
      /```sh\n(npm install \/path[\s\S]*?)```/.exec(markdown)?.[1];
    const readmeLines = block(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(readmeLines).toBeDefined();
    expect(block(readFileSync(join(ROOT, 'docs/guide/install.md'), 'utf8'))).toBe(readmeLines);
  });
});
