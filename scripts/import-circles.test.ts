/**
 * No import circles in the library code of the published packages (`scripts/import-circles.mjs`):
 * a circle is files that cannot be read, moved or tested one without the others, and at run time
 * an order of evaluation that depends on which file is imported first.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles } from './import-circles.mjs';

/** A throw-away repository with `packages/demo/src` holding `files`. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'import-circles-'));
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, 'packages', 'demo', 'src', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return root;
}

describe('import circles', () => {
  it('there are none in packages/*/src', () => {
    expect(importCircles()).toEqual([]);
  });

  it('finds two files that import each other, and a loop of three through a type import', () => {
    const root = repository({
      'a.ts': "import { b } from './b.js';\nexport const a = b;",
      'b.ts': "export { a as b } from './a.js';",
      'c.ts': "import type { D } from './d/index.js';\nexport type C = D;",
      'd/index.ts': "import { e } from '../e.js';\nexport type D = typeof e;",
      'e.ts': "export const e = import('./c.js');",
      'f.ts': "import { a } from './a.js';\nexport const f = a;",
      'f.test.ts': "import { f } from './f.js';\nexport { f as g };",
    });
    expect(importCircles(root)).toEqual([
      ['packages/demo/src/c.ts', 'packages/demo/src/d/index.ts', 'packages/demo/src/e.ts'],
      ['packages/demo/src/a.ts', 'packages/demo/src/b.ts'],
    ]);
  });

  it('finds none in a tree of imports', () => {
    const root = repository({
      'a.ts': "import { b } from './b.js';\nimport { c } from './c.js';\nexport const a = [b, c];",
      'b.ts': "import { c } from './c.js';\nexport const b = c;",
      'c.ts': 'export const c = 1;',
    });
    expect(importCircles(root)).toEqual([]);
  });
});
