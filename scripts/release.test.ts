/**
 * The release rules (releaseProblems in scripts/release.mjs), on the workspace itself and on small
 * workspaces made for each rule: the five @s2sp/* packages share one version; a pending changeset
 * never makes 1.0.0 by accident; once the version is not 0.0.0, every published package has a
 * CHANGELOG.md section for it and docs/releases/<version>.md holds the release notes; a release
 * tag names that version and follows the versioning. Also what `changeset version` makes of the
 * pending changesets, in a throwaway copy: one version for the group, a CHANGELOG.md each.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LATE_CHANGES_MARKER,
  pendingChangesets,
  publishedPackages,
  releaseNotesPath,
  releaseProblems,
} from './release.mjs';
import { releaseTags } from './tag-release.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NAMES = ['cache-redis', 'client', 'core', 'proxy', 'server'];

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Fixture {
  /** Each package's version (default: `version` for all). */
  readonly versions?: Partial<Record<string, string>>;
  readonly version?: string;
  /** Packages given a CHANGELOG.md with a section for their version. */
  readonly changelogs?: readonly string[];
  readonly notes?: boolean;
  /** Pending changesets: file name → bump of @s2sp/core. */
  readonly changesets?: Record<string, string>;
}

/** A workspace of the five packages (and a private one) in the shape releaseProblems reads. */
function workspace({
  version = '0.0.0',
  versions = {},
  changelogs = [],
  notes = false,
  changesets = {},
}: Fixture): string {
  const root = mkdtempSync(join(tmpdir(), 's2sp-release-rules-'));
  made.push(root);
  mkdirSync(join(root, '.changeset'));
  writeFileSync(join(root, '.changeset', 'README.md'), '# Changesets\n');
  for (const [file, bump] of Object.entries(changesets))
    writeFileSync(
      join(root, '.changeset', file),
      `---\n'@s2sp/core': ${bump}\n---\n\nA sentence.\n`,
    );
  for (const name of [...NAMES, 'test-utils']) {
    const dir = join(root, 'packages', name);
    mkdirSync(dir, { recursive: true });
    const own = versions[name] ?? version;
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: `@s2sp/${name}`,
        version: name === 'test-utils' ? '0.0.0' : own,
        private: name === 'test-utils' ? true : undefined,
      }),
    );
    if (changelogs.includes(name))
      writeFileSync(join(dir, 'CHANGELOG.md'), `# @s2sp/${name}\n\n## ${own}\n\n- A change.\n`);
  }
  if (notes) {
    mkdirSync(join(root, 'docs', 'releases'), { recursive: true });
    writeFileSync(releaseNotesPath(root, version), `# S2SP ${version}\n`);
  }
  return root;
}

const rules = (root: string, tag?: string) =>
  releaseProblems(root, { tag }).problems.map(({ rule, subject }) => [rule, subject]);

describe('the release rules', () => {
  it('hold for the workspace as it is', () => {
    const { version, problems } = releaseProblems(ROOT);
    expect(problems).toEqual([]);
    // The published packages are the five of the fixed group, test-utils (private) left out.
    expect(publishedPackages(ROOT).map(({ name }) => name)).toEqual(
      NAMES.map((name) => `@s2sp/${name}`),
    );
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('ask nothing of the packages before the first release (0.0.0)', () => {
    expect(rules(workspace({ changesets: { 'a.md': 'minor' } }))).toEqual([]);
  });

  it('hold for a released version with a CHANGELOG.md section per package and its notes', () => {
    const root = workspace({ version: '0.1.0', changelogs: NAMES, notes: true });
    expect(rules(root)).toEqual([]);
    expect(rules(root, '@s2sp/core@0.1.0')).toEqual([]);
  });

  it('want a CHANGELOG.md with a section for the version of every package once it is not 0.0.0', () => {
    const root = workspace({ version: '0.1.0', changelogs: ['core', 'server'], notes: true });
    expect(rules(root)).toEqual([
      ['changelog', '@s2sp/cache-redis'],
      ['changelog', '@s2sp/client'],
      ['changelog', '@s2sp/proxy'],
    ]);
    // A changelog of an older version only is not this version's.
    writeFileSync(
      join(root, 'packages', 'core', 'CHANGELOG.md'),
      '# @s2sp/core\n\n## 0.0.1\n\n- Older.\n',
    );
    expect(rules(root)).toContainEqual(['changelog', '@s2sp/core']);
  });

  it('want the release notes of the version once it is not 0.0.0', () => {
    const root = workspace({ version: '0.1.0', changelogs: NAMES });
    expect(rules(root)).toEqual([['release-notes', 'docs/releases/0.1.0.md']]);
  });

  it('want the release notes finished: no section left for late changesets', () => {
    const root = workspace({ version: '0.1.0', changelogs: NAMES, notes: true });
    writeFileSync(
      releaseNotesPath(root, '0.1.0'),
      `# S2SP 0.1.0\n\n## Later\n\n${LATE_CHANGES_MARKER} add the late ones -->\n`,
    );
    expect(rules(root)).toEqual([['release-notes', 'docs/releases/0.1.0.md']]);
    // Before the version step, the notes being written for the next version may have it.
    const before = workspace({ version: '0.0.0' });
    mkdirSync(join(before, 'docs', 'releases'), { recursive: true });
    writeFileSync(
      releaseNotesPath(before, '0.1.0'),
      `# S2SP 0.1.0\n\n${LATE_CHANGES_MARKER} -->\n`,
    );
    expect(rules(before)).toEqual([]);
  });

  it('want one version across the fixed group', () => {
    const root = workspace({ versions: { proxy: '0.1.0' } });
    expect(rules(root).map(([rule]) => rule)).toContain('versions');
  });

  it('refuse a major changeset before 1.0, which would release 1.0.0', () => {
    expect(rules(workspace({ changesets: { 'a.md': 'minor', 'b.md': 'major' } }))).toEqual([
      ['major', 'b.md'],
    ]);
    expect(
      rules(
        workspace({
          version: '1.0.0',
          changelogs: NAMES,
          notes: true,
          changesets: { 'b.md': 'major' },
        }),
      ),
    ).toEqual([]);
  });

  it('want a release tag to name the version, with no changeset left to version', () => {
    const root = workspace({
      version: '0.1.0',
      changelogs: NAMES,
      notes: true,
      changesets: { 'late.md': 'patch' },
    });
    expect(rules(root, '@s2sp/core@0.1.0')).toEqual([['pending', 'late.md']]);
    expect(rules(root, '@s2sp/core@0.2.0')).toContainEqual(['tag', '@s2sp/core@0.2.0']);
    expect(rules(root, 'v0.1.0')).toContainEqual(['tag', 'v0.1.0']);
  });

  it('tag each package at the version, the tag that starts the release workflow last', () => {
    const root = workspace({ version: '0.1.0' });
    expect(releaseTags(root)).toEqual([
      '@s2sp/cache-redis@0.1.0',
      '@s2sp/client@0.1.0',
      '@s2sp/proxy@0.1.0',
      '@s2sp/server@0.1.0',
      '@s2sp/core@0.1.0',
    ]);
  });
});

describe('changeset version on the pending changesets', () => {
  it('gives the fixed group one version, a 0.x minor or patch, and a CHANGELOG.md section each', () => {
    // A throwaway copy: the manifests, the workspace file and the changesets.
    const copy = mkdtempSync(join(tmpdir(), 's2sp-version-'));
    made.push(copy);
    for (const file of ['package.json', 'pnpm-workspace.yaml'])
      cpSync(join(ROOT, file), join(copy, file));
    cpSync(join(ROOT, '.changeset'), join(copy, '.changeset'), { recursive: true });
    const before = publishedPackages(ROOT);
    for (const { dir } of before) {
      const name = dir.slice(dir.lastIndexOf('/') + 1);
      mkdirSync(join(copy, 'packages', name), { recursive: true });
      cpSync(join(dir, 'package.json'), join(copy, 'packages', name, 'package.json'));
    }
    const pending = pendingChangesets(ROOT).length;
    const result = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'],
      { cwd: copy, encoding: 'utf8' },
    );
    expect(result.status, result.stderr).toBe(0);
    const after = publishedPackages(copy);
    const versions = new Set(after.map(({ version }) => version));
    expect(versions.size).toBe(1);
    const [version = ''] = versions;
    const [major, minor] = before[0]?.version.split('.').map(Number) ?? [];
    if (pending === 0) expect(version).toBe(before[0]?.version);
    else {
      // From 0.0.0 this is 0.1.0 (the pending changesets are minors and patches).
      expect(version.startsWith(`${major}.`)).toBe(true);
      expect(version).not.toBe(before[0]?.version);
      if (before[0]?.version === '0.0.0') expect(version).toBe(`0.${(minor ?? 0) + 1}.0`);
      for (const { dir } of after)
        expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8').split('\n')).toContain(
          `## ${version}`,
        );
      expect(pendingChangesets(copy)).toEqual([]);
    }
  });
});
