/**
 * `packages/core/PROTOCOL.md`, shipped in `@s2sp/core` and shown as the site's protocol page, is a
 * specification a reader outside the project can follow: it says what S2SP is and how versions
 * work, names no folder or source its readers cannot see, and keeps every section that the code,
 * the tests and the docs cite by number.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './build-site.js';

const protocol = readFileSync(join(ROOT, 'packages/core/PROTOCOL.md'), 'utf8');

/** The section numbers of a Markdown page's numbered headings (`## 3. …`, `### 7.10 …`). */
function sections(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map(([, number = '']) => number),
  );
}

/** What a page says that only the project's own authors could follow. */
function insiderNotes(markdown: string): string[] {
  return [...markdown.matchAll(/[^\n]*\b(?:seeds?\b|search tool|read_file)[^\n]*/gi)].map(
    ([line]) => line,
  );
}

/** Every citation of a protocol section (`PROTOCOL §7.2`, `protocol §5`, `PROTOCOL.md §3`). */
function citations(dir: string): { file: string; section: string }[] {
  const found: { file: string; section: string }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || ['node_modules', 'dist', 'api'].includes(entry.name))
        continue;
      found.push(...citations(path));
    } else if (/\.(ts|mts|mjs|md)$/.test(entry.name)) {
      const text = readFileSync(path, 'utf8');
      for (const [, section = ''] of text.matchAll(
        /\b(?:PROTOCOL(?:\.md)?|[Pp]rotocol) §(\d+(?:\.\d+)?)/g,
      ))
        found.push({ file: relative(ROOT, path), section });
    }
  }
  return found;
}

describe('PROTOCOL.md', () => {
  it('names no seeds folder and carries no notes on where its text came from', () => {
    expect(insiderNotes(protocol)).toEqual([]);
  });

  it('notices such a note', () => {
    expect(insiderNotes('## 7. Extensions beyond the seeds\nok\n')).toEqual([
      '## 7. Extensions beyond the seeds',
    ]);
  });

  it('says what S2SP is, the wire, the extensions and versioning', () => {
    expect(protocol).toMatch(/^# S2SP wire protocol\n\nS2SP \(server-to-server protocol\) is /);
    const numbered = sections(protocol);
    for (const section of ['1', '2', '3', '4', '5', '6', '7', '8'])
      expect(numbered).toContain(section);
    expect(protocol).toMatch(/^## 8\. Versioning$/m);
    // §7.1–§7.11: the extensions keep their numbers.
    for (let minor = 1; minor <= 11; minor++) expect(numbered).toContain(`7.${minor}`);
  });

  it('has every section that the code, the tests and the docs cite', () => {
    const numbered = sections(protocol);
    const cited = [
      ...citations(join(ROOT, 'packages')),
      ...citations(join(ROOT, 'apps')),
      ...citations(join(ROOT, 'docs')),
    ];
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter(({ section }) => !numbered.has(section))).toEqual([]);
  });
});
