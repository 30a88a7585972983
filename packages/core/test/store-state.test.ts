import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe("the store's data path", () => {
  it('passes through values and parameters: no module-level (Weak)Map in src/store', () => {
    const dir = fileURLToPath(new URL('../src/store/', import.meta.url));
    const offenders: string[] = [];
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
      const text = readFileSync(`${dir}${name}`, 'utf8');
      // A map at the top level carries state beside the signatures, keyed by identity: a
      // refactor that copies the key loses what it carried, silently.
      for (const match of text.matchAll(
        /^(?:export )?(?:const|let|var) \w+[^=\n]*= new (Weak)?Map\b/gm,
      ))
        offenders.push(`${name}: ${match[0]}`);
    }
    expect(offenders).toEqual([]);
  });
});
