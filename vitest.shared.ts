import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

const packagesDir = fileURLToPath(new URL('./packages/', import.meta.url));

interface ExportTarget {
  readonly import?: string;
}

/**
 * Resolves the workspace packages to their TypeScript sources in tests, so `vitest` needs no
 * build and coverage maps to `src`. Generated from each package's `exports` map (every
 * `./dist/x.js` is built from `./src/x.ts`), so a new subpath needs no line here. More specific
 * subpaths come first. The published `dist` is exercised by the packaging test.
 */
export const sourceAliases: { find: RegExp; replacement: string }[] = readdirSync(packagesDir, {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    const dir = `${packagesDir}${entry.name}/`;
    let manifest: { name?: string; exports?: Record<string, string | ExportTarget> };
    try {
      manifest = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
    } catch {
      return [];
    }
    const { name, exports = {} } = manifest;
    if (!name) return [];
    return Object.entries(exports).flatMap(([subpath, target]) => {
      const file = typeof target === 'string' ? target : target.import;
      if (!file?.startsWith('./dist/') || !file.endsWith('.js')) return [];
      const source = `${dir}src/${file.slice('./dist/'.length, -'.js'.length)}.ts`;
      const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
      return [{ find: new RegExp(`^${specifier.replace(/[/.]/g, '\\$&')}$`), replacement: source }];
    });
  })
  .sort((a, b) => b.find.source.length - a.find.source.length);

/** Run before every file of every project: see vitest.file-setup.ts. */
const FILE_SETUP = fileURLToPath(new URL('./vitest.file-setup.ts', import.meta.url));

/** A project's own test options: its name, and whatever it sets apart from the defaults below. */
export type ProjectTestOptions = NonNullable<UserWorkspaceConfig['test']> & {
  readonly name: string;
};

/**
 * One vitest project of this repository, with the defaults every project shares:
 * - the workspace packages resolved to their sources ({@link sourceAliases});
 * - `isolate: false`: the files of a worker share one module graph, so the MCP SDK, hono, zod and
 *   our sources are imported once per worker, not once per file (on 2 cores the server, client and
 *   core projects went from 179 s to 85 s). A file must therefore leave no global behind: fake timers,
 *   spies and stubbed variables are restored by the file that made them (`unstubEnvs` does the
 *   last), and vitest.file-setup.ts clears the one registry a file cannot clear for the next (the
 *   OpenTelemetry API's globals). Projects whose setup files patch globals per file (the
 *   loopback guards) set `isolate: true`;
 * - a 30 s test timeout: a guard against a hang, not a speed target (speed is measured in
 *   `bench/`), long enough for a test that starts a child process on a loaded machine.
 */
export function defineWorkspaceProject(test: ProjectTestOptions) {
  return defineProject({
    resolve: { alias: sourceAliases },
    test: {
      environment: 'node',
      isolate: false,
      unstubEnvs: true,
      testTimeout: 30_000,
      ...test,
      setupFiles: [FILE_SETUP, ...[test.setupFiles ?? []].flat()],
    },
  });
}
