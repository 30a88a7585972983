/**
 * The README's Quick start names every system program that the tests start (and that
 * `pnpm test` installs with apt-get where it can): the list in scripts/check-system.mjs, by
 * program and Debian/Ubuntu package; and it says how long the test command takes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SYSTEM_PROGRAMS } from './check-system.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The paragraph after the README's `<!-- system-programs: … -->` marker. */
function systemProgramsParagraph(readme: string): string {
  const lines = readme.split('\n');
  const at = lines.findIndex((line) => line.startsWith('<!-- system-programs:'));
  if (at === -1) return '';
  const end = lines.findIndex((line, i) => i > at && line.trim() === '');
  return lines.slice(at + 1, end === -1 ? undefined : end).join(' ');
}

/** The programs of SYSTEM_PROGRAMS that `text` leaves out: by name, or by Debian package. */
function unnamed(text: string): string[] {
  return SYSTEM_PROGRAMS.filter(([program, debian]) => {
    const name = program.replace(/^the /, '').split(' ')[0] ?? program;
    return !text.includes(name) || !text.includes(`\`${debian}\``);
  }).map(([program]) => program);
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const quickStart = readme.slice(readme.indexOf('## Quick start'));

describe("the README's system programs", () => {
  it('names every program the tests start, with its Debian package', () => {
    const paragraph = systemProgramsParagraph(quickStart);
    expect(SYSTEM_PROGRAMS.length).toBeGreaterThanOrEqual(5);
    expect(paragraph).toContain('apt-get');
    expect(unnamed(paragraph)).toEqual([]);
  });

  it('notices a program left out', () => {
    const paragraph = systemProgramsParagraph(quickStart).replaceAll(
      /MariaDB|`mariadb-[a-z-]+`/g,
      '',
    );
    expect(unnamed(paragraph)).toEqual(['MariaDB (mariadbd)', 'the MariaDB client (mariadb)']);
    expect(unnamed('')).toHaveLength(SYSTEM_PROGRAMS.length);
  });

  it('says how long `pnpm test` takes', () => {
    const test = quickStart.split('\n').find((line) => line.includes('pnpm@10 test'));
    expect(test).toMatch(/about \d+ minutes/);
    const minutes = Number(/about (\d+) minutes/.exec(test ?? '')?.[1]);
    // The budget the test command is held to, on a quiet 2-core machine: the README promises it.
    expect(minutes).toBeLessThanOrEqual(8);
  });
});
