// The proxy reaches @s2sp/server through its edge only (CONTRIBUTING.md, "The proxy's edge"):
// five library files import it, and each only the entries listed for it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Each file's allowed `@s2sp/server*` entries. */
const EDGE: Readonly<Record<string, readonly string[]>> = {
  'tables/s2sp-call.ts': ['@s2sp/server', '@s2sp/server/gateway', '@s2sp/server/http'],
  'proxy.ts': ['@s2sp/server', '@s2sp/server/http'],
  'proxy-options.ts': ['@s2sp/server/env'],
  'cli/proxy-settings.ts': ['@s2sp/server/env'],
  'main.ts': ['@s2sp/server', '@s2sp/server/node'],
};

function libraryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return libraryFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The `@s2sp/server*` entries each library file imports, for the files that import any. */
function serverImports(): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const file of libraryFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const entries = [...text.matchAll(/from '(@s2sp\/server(?:\/[a-z0-9-]+)?)'/g)].map((m) => m[1]);
    if (entries.length > 0)
      found[relative(SRC, file).replaceAll('\\', '/')] = [...new Set(entries as string[])].sort();
  }
  return found;
}

describe("the proxy's edge", () => {
  it('is at most five files, each importing only its listed entries of @s2sp/server', () => {
    const found = serverImports();
    expect(Object.keys(found).length).toBeLessThanOrEqual(5);
    for (const [file, entries] of Object.entries(found))
      expect(EDGE[file], `${file} imports ${entries.join(', ')}`).toEqual(
        expect.arrayContaining(entries),
      );
  });
});
