import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Every name (values and types) an entry point exports, read by the TypeScript checker. */
function exportedNames(entry: string): string[] {
  const file = fileURLToPath(new URL(entry, import.meta.url));
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`cannot read ${entry}`);
  return checker.getExportsOfModule(symbol).map((s) => s.getName());
}

describe("@s2sp/core's main entry", () => {
  it('is the protocol and stays small: at most 35 names, values and types alike', () => {
    const names = exportedNames('../src/index.ts');
    expect(names.length).toBeLessThanOrEqual(35);
    // The protocol's pillars are there; result building and consumer parsing are not.
    expect(names).toEqual(
      expect.arrayContaining(['S2SPError', 'PROTOCOL', 'parseRowFilter', 'fetchBody']),
    );
    for (const moved of ['splitColumns', 'parseConsumerArguments', 'mergeRows', 'estimateTokens'])
      expect(names).not.toContain(moved);
    // A whole TypeScript program is built: seconds on a loaded two-core machine.
  }, 60_000);
});

describe('package boundaries', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const workspaceDirs = ['packages', 'apps', 'bench', 'reliability', 'integration'];

  function sourceFiles(dir: string): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', 'results'].includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) out.push(...sourceFiles(path));
      else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) out.push(path);
    }
    return out;
  }

  /** The workspace package a path belongs to: the nearest folder with a package.json. */
  function packageOf(path: string): string {
    let dir = dirname(path);
    while (dir.startsWith(root) && !existsSync(join(dir, 'package.json'))) dir = dirname(dir);
    return dir;
  }

  it('has no internal subpath in any package and no import of another package by its files', () => {
    const offenders: string[] = [];
    for (const top of workspaceDirs) {
      const dir = join(root, top);
      if (!existsSync(dir)) continue;
      for (const file of sourceFiles(dir)) {
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(/from\s+'([^']+)'|import\('([^']+)'\)/g)) {
          const specifier = match[1] ?? match[2] ?? '';
          // A workspace package's internals, by name or by path into its sources.
          if (/^@s2sp\/[^/]+\/internal$/.test(specifier)) offenders.push(`${file}: ${specifier}`);
          if (specifier.startsWith('.')) {
            const target = join(dirname(file), specifier);
            if (packageOf(file) !== packageOf(target) && /\/src(\/|$)/.test(target))
              offenders.push(`${relative(root, file)}: ${specifier}`);
          }
        }
      }
    }
    expect(offenders).toEqual([]);
    for (const top of ['packages', 'apps']) {
      for (const name of readdirSync(join(root, top))) {
        const manifest = join(root, top, name, 'package.json');
        if (!existsSync(manifest)) continue;
        const exports = JSON.parse(readFileSync(manifest, 'utf8')).exports ?? {};
        expect(Object.keys(exports).filter((key) => key.includes('internal'))).toEqual([]);
      }
    }
  });
});
