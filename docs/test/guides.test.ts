/**
 * The site's pages for a newcomer's first hour: a troubleshooting page for the errors users meet,
 * each with the code they see and what to do; a first-server tutorial built from the example files
 * that the tests run (its expected output is checked against a real run in samples-run.test.ts);
 * and both in the sidebar.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS, ROOT } from './build-site.js';

const page = (name: string) => readFileSync(join(DOCS, 'guide', `${name}.md`), 'utf8');
const config = readFileSync(join(DOCS, '.vitepress/config.mts'), 'utf8');

/** The S2SP error codes: the keys of @s2sp/core's code → HTTP status table. */
const CODES = new Set(
  [
    ...(
      /S2SP_ERROR_STATUS[^{]*\{([\s\S]*?)\}/.exec(
        readFileSync(join(ROOT, 'packages/core/src/errors.ts'), 'utf8'),
      )?.[1] ?? ''
    ).matchAll(/^\s+([a-z_]+): \d{3},/gm),
  ].map(([, code = '']) => code),
);

/** The `##` sections of a page: heading and body. */
function sectionsOf(markdown: string): { heading: string; body: string }[] {
  return markdown
    .split(/^## /m)
    .slice(1)
    .map((part) => {
      const [heading = '', ...body] = part.split('\n');
      return { heading, body: body.join('\n') };
    });
}

/** The error codes a troubleshooting page leaves out, of those it must explain. */
function missingTopics(markdown: string): string[] {
  const headings = sectionsOf(markdown).map(({ heading }) => heading);
  return [
    'ERA_NEGOTIATION_FAILED',
    'invalid_rows',
    'invalid_request',
    'not_found',
    'store_full',
    'start-up time-out',
    'refused origin',
  ].filter((topic) => !headings.some((heading) => heading.includes(topic)));
}

describe('the troubleshooting page', () => {
  const text = page('troubleshooting');

  it('is in the sidebar, beside the first-server tutorial and the install page', () => {
    for (const link of ['/guide/troubleshooting', '/guide/first-server', '/guide/install'])
      expect(config).toContain(`link: '${link}'`);
  });

  it('explains each error users meet first, in a section of its own', () => {
    expect(CODES.size).toBeGreaterThan(10);
    expect(missingTopics(text)).toEqual([]);
  });

  it('notices a page that leaves one out', () => {
    expect(missingTopics(text.replace(/^## .*store_full.*$/m, '## Something else'))).toEqual([
      'store_full',
    ]);
  });

  it('says what to do about each, and names only codes S2SP has', () => {
    for (const { heading, body } of sectionsOf(text).filter(
      (each) => each.heading !== 'Other errors',
    ))
      expect(body, heading).toMatch(
        /\*\*What to do:\*\*|Check |Start it with|Install the upstream/,
      );
    const table = sectionsOf(text).find(({ heading }) => heading === 'Other errors')?.body ?? '';
    const rows = [...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map(([, code = '']) => code);
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.filter((code) => !CODES.has(code))).toEqual([]);
    const headed = [...text.matchAll(/^## .*`(?:\d{3} )?([a-z_]+)`$/gm)].map(
      ([, code = '']) => code,
    );
    expect(headed.length).toBeGreaterThanOrEqual(4);
    expect(headed.filter((code) => !CODES.has(code))).toEqual([]);
  });
});

describe('the first-server tutorial', () => {
  const text = page('first-server');

  it('shows the example files the tests run, the tsconfig.json included', () => {
    for (const file of ['hono-server.ts', 'hono-client.ts', 'tsconfig.json'])
      expect(text).toContain(`<<< @/../packages/server/examples/${file}\n`);
  });

  it('gives the output to expect after each command it runs', () => {
    const commands = [...text.matchAll(/```sh\n(npx tsx \S+|curl [^\n]+)\n```\n\n```\n/g)];
    expect(commands.length).toBeGreaterThanOrEqual(3);
  });
});
