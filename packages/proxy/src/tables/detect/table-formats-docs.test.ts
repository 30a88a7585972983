import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TABLE_FORMATS } from './text-formats.js';

const read = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');
/** The backticked names in a piece of text, in order. */
const names = (text: string) => [...text.matchAll(/`([a-z]+)`/g)].map((match) => match[1]);

describe('the format lists in the docs follow the registry', () => {
  it('README: the --table-tool row lists every format, in the order they are tried', () => {
    const row = read('README.md')
      .split('\n')
      .find((line) => line.startsWith('| `--table-tool'));
    const listed = /which one alone is tried \(([^)]*)\)/.exec(row ?? '')?.[1] ?? '';
    expect(names(listed.split(':')[0] ?? '')).toEqual([...TABLE_FORMATS]);
  });

  it('the proxy guide: the formats block lists every format, in the order they are tried', () => {
    const guide = read('../../docs/guide/proxy.md');
    const block = /<!-- table-formats -->([\s\S]*?)<!-- \/table-formats -->/.exec(guide)?.[1];
    expect(names(block ?? '')).toEqual([...TABLE_FORMATS]);
  });
});
