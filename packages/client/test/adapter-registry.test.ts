/**
 * The adapter registry is `package.json` `exports` (see `clientAdapters()` in
 * `@s2sp/test-utils`): the build entries derive from it, and this checks that every other place an
 * adapter appears follows it — its source and unit test, the module a user imports, the README
 * table and the tables of the agent frameworks guide. `integration/agents` checks its runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CLIENT_PACKAGE_DIR, clientAdapters, clientManifest, tableAfter } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { entry } from '../tsup.config.js';

const adapters = clientAdapters();
const README = `${CLIENT_PACKAGE_DIR}README.md`;
const GUIDE = `${CLIENT_PACKAGE_DIR}../../docs/guide/agent-frameworks.md`;

/** A table's column: each row's cell at `column`, as `read` gives it. */
function column(
  path: string,
  marker: string,
  at: number,
  read: (cell: string) => string = (cell) => cell,
): string[] {
  const table = tableAfter(readFileSync(path, 'utf8'), marker);
  if (!table) throw new Error(`${path}: no table after <!-- ${marker} -->`);
  return table.rows.map((row) => read(row[at] ?? ''));
}

/** The code spans of a cell: `` `@s2sp/client/ai-sdk` `` → `@s2sp/client/ai-sdk`. */
const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
/** A cell's link text, or the cell: `[Mastra](#mastra)` → `Mastra`. */
const linkText = (cell: string) => /^\[([^\]]+)\]/.exec(cell)?.[1] ?? cell;
/** The names the README gives the frameworks, in the registry's order. */
const frameworks = () => column(README, 'adapters', 0);

describe("@s2sp/client's adapter registry (package.json exports)", () => {
  it('has the MCP SDK adapter at the main entry and one subpath per framework', () => {
    expect(adapters[0]).toEqual({ specifier: '@s2sp/client', name: 'mcp-sdk' });
    expect(new Set(adapters.map((adapter) => adapter.name)).size).toBe(adapters.length);
  });

  it('gives tsup one entry per subpath, each a source file', () => {
    const names = adapters.map((adapter) => (adapter.name === 'mcp-sdk' ? 'index' : adapter.name));
    expect(Object.keys(entry)).toEqual(names);
    for (const file of Object.values(entry))
      expect(existsSync(`${CLIENT_PACKAGE_DIR}${file}`), file).toBe(true);
  });

  it.each(adapters)(
    '$specifier: has its source and unit test, and exports withS2SP',
    async ({ specifier, name }) => {
      expect(existsSync(`${CLIENT_PACKAGE_DIR}src/${name}.ts`)).toBe(true);
      expect(existsSync(`${CLIENT_PACKAGE_DIR}test/${name}.test.ts`)).toBe(true);
      const module = (await import(specifier)) as Record<string, unknown>;
      const main = (await import('@s2sp/client')) as Record<string, unknown>;
      expect(typeof module.withS2SP).toBe('function');
      expect(module.S2SPDispatcher).toBe(main.S2SPDispatcher);
    },
  );

  it('is listed, in order, by the README table', () => {
    expect(column(README, 'adapters', 1, (cell) => codeSpans(cell)[0] ?? '')).toEqual(
      adapters.map((adapter) => adapter.specifier),
    );
  });

  it('is listed, in order, by the tables of the agent frameworks guide', () => {
    expect(column(GUIDE, 'adapters', 1, (cell) => codeSpans(cell)[0] ?? '')).toEqual(
      adapters.map((adapter) => adapter.specifier),
    );
    expect(column(GUIDE, 'adapters', 0, linkText)).toEqual(frameworks());
    expect(column(GUIDE, 'adapter capabilities', 0, linkText)).toEqual(frameworks());
    expect(column(GUIDE, 'abstract encoding', 0, linkText)).toEqual(frameworks());
    const subpaths = column(GUIDE, 'api', 0, (cell) => codeSpans(cell)[0] ?? '').filter((code) =>
      code.startsWith('@s2sp/client/'),
    );
    expect(subpaths).toEqual(adapters.slice(1).map((adapter) => adapter.specifier));
  });

  it("gives the guide's peer table the ranges of package.json", () => {
    const peers = clientManifest().peerDependencies;
    const table = tableAfter(readFileSync(GUIDE, 'utf8'), 'adapter peers');
    const differences: string[] = [];
    for (const [names = '', ranges = ''] of table?.rows ?? []) {
      const written = codeSpans(ranges.replace(/\\\|/g, '|'));
      codeSpans(names).forEach((name, i) => {
        if (peers[name] !== written[i])
          differences.push(`${name}: the guide says ${written[i]}, package.json ${peers[name]}`);
      });
    }
    expect(table?.rows.length).toBeGreaterThan(0);
    expect(differences).toEqual([]);
  });
});
