/**
 * The root README's quick start as a newcomer reads it: `pnpm --silent demo --json` prints one
 * JSON document (nothing from pnpm or turbo before it), and what the README and the quick-start
 * page say about the demo and `pnpm dev` — how many servers, which, the table's size — is what
 * runs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoReport } from '../src/agent.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PAGES = ['README.md', 'docs/guide/quick-start.md', 'docs/guide/introduction.md'];
const NUMBER_WORDS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6 };
const out = mkdtempSync(join(tmpdir(), 's2sp-demo-json-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The pnpm running this test (pnpm test), else the one on PATH. */
function pnpm(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  return execPath?.includes('pnpm') ? [process.execPath, [execPath]] : ['pnpm', []];
}

let stdout = '';
let stderr = '';
let exitCode: number | null = null;
beforeAll(async () => {
  const [command, args] = pnpm();
  // As the README has it, from the repository's root: the install check and the build included.
  const child = spawn(command, [...args, '--silent', 'demo', '--json', '--out', out], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  [exitCode] = (await once(child, 'exit')) as [number | null];
}, 120_000);

/** Every paragraph of the pages that mentions `needle`, joined into one line each. */
function paragraphsWith(needle: string): string[] {
  return PAGES.flatMap((page) =>
    readFileSync(join(ROOT, page), 'utf8')
      .split(/\n\s*\n/)
      .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' '))
      .filter((paragraph) => paragraph.includes(needle)),
  );
}

describe('pnpm --silent demo --json', () => {
  it('prints one JSON document on stdout and its progress on stderr', () => {
    expect(exitCode, stderr).toBe(0);
    const report = JSON.parse(stdout) as DemoReport;
    expect(report).toMatchObject({ area: 'TX', rows: 19, columns: 30 });
    expect(stderr).toMatch(/› weather-alerts \(S2SP resource server\) at http:/);
  });
});

describe('what the README says about the demo and pnpm dev', () => {
  it('gives the size of the table the demo shows', () => {
    const report = JSON.parse(stdout) as DemoReport;
    const sizes = PAGES.flatMap((page) => [
      ...readFileSync(join(ROOT, page), 'utf8').matchAll(/(\d+) alerts × (\d+) columns/g),
    ]).map((match) => `${match[1]} × ${match[2]}`);
    expect(sizes.length).toBeGreaterThan(0);
    for (const size of sizes) expect(size).toBe(`${report.rows} × ${report.columns}`);
  });

  it('counts and names the servers the demo starts', () => {
    const started = [...stderr.matchAll(/^› (\S+)[^\n]* at http:\/\//gm)].map((match) => match[1]);
    expect(started).toHaveLength(4);
    const sentences = paragraphsWith('starts').filter((text) => /starts \w+ servers/.test(text));
    expect(sentences.length).toBeGreaterThanOrEqual(2);
    for (const text of sentences) {
      const word = /starts (\w+) servers/.exec(text)?.[1] ?? '';
      expect(NUMBER_WORDS[word], text).toBe(started.length);
      for (const app of started.filter((name) => name !== 'NWS'))
        expect(text).toContain(`\`${app}\``);
    }
  });

  it('names every app that pnpm dev starts, and says how many', () => {
    const apps = readdirSync(join(ROOT, 'apps')).filter((dir) => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'apps', dir, 'package.json'), 'utf8'));
      return typeof manifest.scripts?.dev === 'string';
    });
    expect(apps.sort()).toEqual(['chart-consumer', 'sql-consumer', 'weather-alerts']);
    const mentions = paragraphsWith('`pnpm dev` runs');
    expect(mentions.length).toBeGreaterThanOrEqual(2);
    for (const text of mentions) {
      expect(text).not.toMatch(/\bboth servers\b/);
      const count = /`pnpm dev` runs the (\w+) app servers/.exec(text)?.[1] ?? '';
      expect(NUMBER_WORDS[count], text).toBe(apps.length);
      for (const app of apps) expect(text).toContain(app);
    }
  });
});
