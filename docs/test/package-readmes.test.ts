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

  it.each(published)('%s: the install line names every @s2sp package it needs', (name) => {
    const line = readme(name)
      .text.split('\n')
      .find((each) => each.startsWith('npm install @s2sp/'));
    expect(line, 'no `npm install @s2sp/…` line').toBeDefined();
    const named = [...(line ?? '').matchAll(/@s2sp\/[a-z-]+/g)].map((match) => match[0]);
    expect(needs(name).filter((each) => !named.includes(each))).toEqual([]);
  });

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
