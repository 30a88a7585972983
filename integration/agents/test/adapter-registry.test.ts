/**
 * Every adapter of `@s2sp/client`'s registry (its `exports`) is run by both suites, at the
 * framework's current version and at the lowest one its peer range claims: the modules in
 * `adapters/` are exactly the registry's, each names the framework packages it drives, and
 * `lowest/` pins each of them at its peer range's lower bound (unless that is the current version),
 * with a run at that version in each suite.
 */
import { existsSync, readdirSync } from 'node:fs';
import { clientAdapters, clientManifest } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { type AdapterRuns, installedVersion, loadAdapters } from './adapter-runs.js';

/** `1.26.0` of `^1.26.0`, `0.24.9` of `~0.24.9 || ^1.68.0`: the lowest version a range allows. */
function lowerBound(range: string): string {
  const bounds = range.split('||').map(
    (part) =>
      part
        .trim()
        .split(/\s+/)[0]
        ?.replace(/^[>=^~]+/, '') ?? '',
  );
  const numeric = (version: string) => version.split('.').map(Number);
  return (
    bounds.sort((a, b) => {
      const [x, y] = [numeric(a), numeric(b)];
      for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      return 0;
    })[0] ?? range
  );
}

/** The framework packages of `runs` whose lowest claimed version is not the current one. */
function lowestPackages(runs: AdapterRuns): string[] {
  const peers = clientManifest().peerDependencies;
  return runs.packages.filter((name) => lowerBound(peers[name] ?? '') !== installedVersion(name));
}

const adapters = await loadAdapters();

describe('the adapter registry in integration/agents', () => {
  it('has one runs module per adapter of @s2sp/client, and no other', () => {
    const modules = readdirSync(new URL('./adapters/', import.meta.url)).map((file) =>
      file.replace(/\.ts$/, ''),
    );
    expect(modules.sort()).toEqual(
      clientAdapters()
        .map((adapter) => adapter.name)
        .sort(),
    );
  });

  it('reads the lower bound of a peer range', () => {
    expect(lowerBound('^1.26.0')).toBe('1.26.0');
    expect(lowerBound('~0.24.9 || ^1.68.0')).toBe('0.24.9');
    expect(lowerBound('>=0.14.3 <0.21')).toBe('0.14.3');
    expect(lowerBound('^2.0.0 || ~0.14.5')).toBe('0.14.5');
  });

  describe.each(adapters)('$specifier', ({ name, runs }) => {
    it('drives framework packages that are peer dependencies of @s2sp/client', () => {
      expect(runs.packages.length).toBeGreaterThan(0);
      const peers = Object.keys(clientManifest().peerDependencies);
      expect(runs.packages.filter((pkg) => !peers.includes(pkg))).toEqual([]);
    });

    it('runs the consumer-role scenario and the matrix at the current version', () => {
      expect(runs.consumerRole.filter((run) => run.version === 'current').length).toBeGreaterThan(
        0,
      );
      const matrix = runs.clientMatrix;
      if ('none' in matrix) expect(matrix.none.length).toBeGreaterThan(20);
      else expect(matrix.filter((run) => run.version === 'current').length).toBeGreaterThan(0);
    });

    it('pins the lowest claimed versions in lowest/ and runs them in both suites', () => {
      const peers = clientManifest().peerDependencies;
      const lowest = lowestPackages(runs);
      for (const pkg of lowest)
        expect(installedVersion(pkg, 'lowest'), pkg).toBe(lowerBound(peers[pkg] ?? ''));
      const needsLowest = lowest.length > 0;
      expect(existsSync(new URL(`../lowest/${name}.ts`, import.meta.url))).toBe(needsLowest);
      expect(runs.consumerRole.some((run) => run.version === 'lowest')).toBe(needsLowest);
      if (Array.isArray(runs.clientMatrix))
        expect(runs.clientMatrix.some((run) => run.version === 'lowest')).toBe(needsLowest);
    });
  });
});
