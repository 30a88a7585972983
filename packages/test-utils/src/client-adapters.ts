/**
 * The one list of `@s2sp/client`'s adapters: the subpaths of its `package.json` `exports` (the main
 * entry is the MCP SDK's `withS2SP`). tsup builds an entry per subpath and vitest resolves each to
 * its source from the same map; everything else about an adapter is found by its name, and tests
 * fail when a piece is missing: its source `packages/client/src/<name>.ts` and unit test
 * `packages/client/test/<name>.test.ts`, its runs in `integration/agents/test/adapters/<name>.ts`
 * (at the current and at the lowest framework versions), and its rows in the client README and
 * the agent frameworks guide.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `packages/client/`, where the registry (its `package.json`) lives. */
export const CLIENT_PACKAGE_DIR: string = fileURLToPath(new URL('../../client/', import.meta.url));

/** One adapter of `@s2sp/client`. */
export interface ClientAdapter {
  /** What users import it from: `@s2sp/client`, `@s2sp/client/mastra`. */
  readonly specifier: string;
  /** Its file name everywhere: the subpath, or `mcp-sdk` for the main entry. */
  readonly name: string;
}

/** What the registry reads of `packages/client/package.json`. */
export interface ClientManifest {
  readonly name: string;
  readonly exports: Record<string, unknown>;
  readonly peerDependencies: Record<string, string>;
}

/** `packages/client/package.json`. */
export function clientManifest(): ClientManifest {
  return JSON.parse(readFileSync(`${CLIENT_PACKAGE_DIR}package.json`, 'utf8')) as ClientManifest;
}

/** Every adapter of `@s2sp/client`, in the order of its `exports`. */
export function clientAdapters(): ClientAdapter[] {
  const { name, exports } = clientManifest();
  return Object.keys(exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) =>
      subpath === '.'
        ? { specifier: name, name: 'mcp-sdk' }
        : { specifier: `${name}/${subpath.slice(2)}`, name: subpath.slice(2) },
    );
}
