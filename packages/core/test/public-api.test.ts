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

/**
 * The budget of every entry point of the five published packages: a new public name must take a
 * budget line here, where a reviewer sees it. A public name is one a store author, a consumer, a
 * peer implementation or a user of the package needs; what one package uses stays in it.
 */
const ENTRY_BUDGETS: Readonly<Record<string, number>> = {
  '@s2sp/core': 35,
  '@s2sp/core/advice': 14,
  '@s2sp/core/store': 23,
  '@s2sp/core/json': 6,
  '@s2sp/core/options': 15,
  '@s2sp/core/receipt': 2,
  '@s2sp/core/otel': 6,
  '@s2sp/core/node': 2,
  '@s2sp/core/testing': 3,
  '@s2sp/server': 45,
  '@s2sp/server/http': 25,
  '@s2sp/server/node': 4,
  '@s2sp/server/slop': 4,
  '@s2sp/server/a2s': 13,
  '@s2sp/server/env': 16,
  // For gateways (`@s2sp/proxy`): what only a program in front of another server needs.
  '@s2sp/server/gateway': 16,
  '@s2sp/client': 14,
  '@s2sp/client/ai-sdk': 5,
  '@s2sp/client/langchain': 8,
  '@s2sp/client/openai-agents': 4,
  '@s2sp/client/claude-agent-sdk': 11,
  '@s2sp/client/mastra': 7,
  '@s2sp/cache-redis': 8,
  '@s2sp/cache-redis/settings': 2,
  '@s2sp/proxy': 11,
};
/** Core is for third parties: all its entries together. */
const CORE_BUDGET = 119;
/** The five packages together (the aim is 250). */
const TOTAL_BUDGET = 299;

describe('every entry point of the published packages', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const entries = ['core', 'server', 'client', 'cache-redis', 'proxy'].flatMap((name) => {
    const dir = join(root, 'packages', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return Object.entries(manifest.exports as Record<string, { types?: string }>)
      .filter(([path]) => path !== './package.json')
      .map(([path, target]) => ({
        name: `@s2sp/${name}${path === '.' ? '' : path.slice(1)}`,
        // The entry's source: its declarations' path under src/ instead of dist/.
        file: join(
          dir,
          String(target.types)
            .replace('./dist/', 'src/')
            .replace(/\.d\.ts$/, '.ts'),
        ),
      }));
  });

  it('has a budget, the API-change header, and no more names than its budget', () => {
    // One program for all entries: building one per entry takes minutes on a loaded machine.
    const program = ts.createProgram(
      entries.map((entry) => entry.file),
      {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        noEmit: true,
        skipLibCheck: true,
      },
    );
    const checker = program.getTypeChecker();
    const counts: Record<string, number> = {};
    for (const entry of entries) {
      const source = program.getSourceFile(entry.file);
      const symbol = source && checker.getSymbolAtLocation(source);
      if (!symbol) throw new Error(`cannot read ${entry.file}`);
      counts[entry.name] = checker.getExportsOfModule(symbol).length;
      expect(source.text.slice(0, 4000), entry.name).toMatch(
        /adding an export here is an API change/,
      );
    }
    expect(Object.keys(counts).sort()).toEqual(Object.keys(ENTRY_BUDGETS).sort());
    const over = Object.entries(counts).filter(
      ([name, count]) => count > (ENTRY_BUDGETS[name] ?? 0),
    );
    expect(over, 'entries over their budget').toEqual([]);
    const sum = (prefix: string) =>
      Object.entries(counts)
        .filter(([name]) => name === prefix || name.startsWith(`${prefix}/`))
        .reduce((total, [, count]) => total + count, 0);
    expect(sum('@s2sp/core')).toBeLessThanOrEqual(CORE_BUDGET);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(TOTAL_BUDGET);
  }, 120_000);
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
