/**
 * The root README as a newcomer's first screen: what S2SP is and the two Quick start commands come
 * first, the whole file stays short (the tutorials live on the site), the diagram is a rendered
 * image rather than a clipped ASCII block, and the one way to pack the packages reads the same in
 * the README and on every page of the site.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './build-site.js';

/** At most this many lines. */
const MAX_LINES = 250;
/** The first screen: a terminal or a GitHub page above the fold. */
const FIRST_SCREEN = 24;
/** The two Quick start commands, as the README gives them (the test time as last measured). */
const QUICK_START = [
  'npx -y pnpm@10 demo    # installs, builds, and runs the demo pipeline',
  'npx -y pnpm@10 test    # runs every test (lint, types, unit and integration): about 7 minutes on 2 cores',
];

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** Where a README's problems lie for a newcomer's first screen; empty when there are none. */
function firstScreenProblems(text: string): string[] {
  const lines = text.trimEnd().split('\n');
  const problems: string[] = [];
  if (lines.length > MAX_LINES) problems.push(`${lines.length} lines, more than ${MAX_LINES}`);
  if (!/^# .+\n\n\*\*S2SP\*\* \(server-to-server protocol\) is /.test(text))
    problems.push('does not open by saying what S2SP is');
  const heading = lines.indexOf('## Quick start');
  if (heading === -1 || heading >= FIRST_SCREEN)
    problems.push('no ## Quick start on the first screen');
  for (const command of QUICK_START) {
    const at = lines.indexOf(command);
    if (at === -1 || at >= FIRST_SCREEN) problems.push(`not on the first screen: ${command}`);
  }
  return problems;
}

/** Not sources of pages: installs, builds, the generated API reference, test fixtures. */
const SKIP_DIRS = new Set(['node_modules', 'dist', 'api', 'test', 'packs', 'coverage']);

/** Every block of shell lines that packs the packages, in the Markdown files of `dir`. */
function packBlocks(dir: string): { file: string; block: string }[] {
  const found: { file: string; block: string }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
      found.push(...packBlocks(path));
    } else if (entry.name.endsWith('.md')) {
      const text = readFileSync(path, 'utf8');
      for (const [, block = ''] of text.matchAll(/```sh\n([\s\S]*?)```/g))
        if (block.includes(' pack ')) found.push({ file: relative(ROOT, path), block });
    }
  }
  return found;
}

describe('the root README', () => {
  it(`says what S2SP is and gives the two Quick start commands on its first ${FIRST_SCREEN} lines, in at most ${MAX_LINES} lines`, () => {
    expect(firstScreenProblems(readme)).toEqual([]);
  });

  it('notices a README whose Quick start comes after a tutorial', () => {
    const [title = '', ...rest] = readme.split('\n');
    const tutorial = Array.from({ length: 160 }, (_, i) => `tutorial line ${i}`);
    const late = [title, ...tutorial, ...rest].join('\n');
    expect(firstScreenProblems(late)).toEqual([
      `${late.trimEnd().split('\n').length} lines, more than ${MAX_LINES}`,
      'does not open by saying what S2SP is',
      'no ## Quick start on the first screen',
      `not on the first screen: ${QUICK_START[0]}`,
      `not on the first screen: ${QUICK_START[1]}`,
    ]);
  });

  it('shows the diagram as an image the site also serves, not as an ASCII block', () => {
    expect(readme).not.toMatch(/[┌┐└┘│─▶◀▲▼]/);
    const image = /!\[[^\]]+\]\((docs\/public\/[^)]+\.svg)\)/.exec(readme)?.[1];
    expect(image).toBeDefined();
    expect(existsSync(join(ROOT, image ?? ''))).toBe(true);
    const intro = readFileSync(join(ROOT, 'docs/guide/introduction.md'), 'utf8');
    expect(intro).toContain(`](/${image?.replace('docs/public/', '')})`);
    expect(intro).not.toMatch(/[┌┐└┘│▶◀▲▼]/);
  });

  it('packs the packages with one command, the same in the README and on the site', () => {
    const blocks = packBlocks(ROOT);
    const files = [...new Set(blocks.map((each) => each.file))].sort();
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'docs/guide/first-server.md', 'docs/guide/install.md']),
    );
    const readmeBlock = blocks.find((each) => each.file === 'README.md')?.block;
    for (const { file, block } of blocks) expect(block, file).toBe(readmeBlock);
  });
});
