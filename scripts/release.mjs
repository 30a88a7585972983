// `pnpm release [--registry <url>] [--dry-run] [--check [<tag>]]`: version the @s2sp/* packages
// with the pending changesets (`changeset version`: new versions, CHANGELOG.md files, the
// changeset files consumed), build them, and publish the versions the registry lacks
// (`changeset publish`). A maintainer versions on main with `pnpm version-packages` and commits,
// tags that commit with scripts/tag-release.mjs and pushes the tag; the release workflow
// (.github/workflows/release.yml), started by the tag, runs `--check <tag>` and then this script,
// which with no changeset pending only builds and publishes (CONTRIBUTING.md, "Releases").
//
// --check [<tag>] versions and publishes nothing: it reports what breaks the release rules
// (releaseProblems: one version for the fixed group, a CHANGELOG.md section per package and the
// release notes once the version is not 0.0.0; with a tag, that the tag names the version and
// no changeset is pending) and exits 1 if anything does.
//
// --registry <url> publishes to that registry instead of npm's (the packaging test publishes to
// a local Verdaccio this way, through this same function, in a temporary copy of the workspace).
//
// `changeset publish` has no dry run, and `pnpm -r publish --dry-run` still asks the registry
// which versions exist; so `--dry-run` versions nothing and packs every public package with
// `pnpm pack` (which, like publishing, turns workspace: and catalog: ranges into real versions)
// and lists what each tarball would upload. It needs no registry at all.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The changeset files not yet consumed by `changeset version` in the workspace at `root`. */
export function pendingChangesets(root) {
  return readdirSync(join(root, '.changeset')).filter(
    (file) => file.endsWith('.md') && file !== 'README.md',
  );
}

/**
 * The published packages of the workspace at `root` (every `packages/*` that is not private):
 * their directory, name and version.
 *
 * @returns {{ dir: string, name: string, version: string }[]}
 */
export function publishedPackages(root) {
  return readdirSync(join(root, 'packages'))
    .filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(
        readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'),
      );
      return {
        dir: join(root, 'packages', dir),
        name: manifest.name,
        version: manifest.version,
        private: manifest.private,
      };
    })
    .filter((pkg) => !pkg.private)
    .map(({ dir, name, version }) => ({ dir, name, version }));
}

/** The version before the first release: nothing is versioned yet, so no release rule applies. */
export const UNRELEASED_VERSION = '0.0.0';

/**
 * What keeps the workspace at `root` from being released at its current version (none: it can be
 * tagged and published). The rules of a release, in one place:
 * - `versions`: the `fixed` group's packages share one version;
 * - `major`: while that version is 0.x, no pending changeset asks for a `major` bump (it would
 *   make 1.0.0, which is a decision of its own, not a side effect of one change);
 * - `changelog`: once the version is not 0.0.0, each package has a CHANGELOG.md with a section
 *   for it;
 * - `release-notes`: once the version is not 0.0.0, the project has its release notes,
 *   `docs/releases/<version>.md`, finished (without the LATE_CHANGES_MARKER section);
 * - with `tag` (a tag name such as `@s2sp/core@0.1.0`, what started the release workflow),
 *   `tag`: it names a published package at that version, and `pending`: no changeset is
 *   pending (publishing from a tag never versions).
 *
 * @param {string} root
 * @param {{ tag?: string }} [options]
 * @returns {{ version: string | undefined, problems: { rule: string, subject: string, message: string }[] }}
 *   each problem with its rule, what it is about (a package, a file, the tag) and a sentence
 */
export function releaseProblems(root, { tag } = {}) {
  const packages = publishedPackages(root);
  const problems = [];
  const problem = (rule, subject, message) => problems.push({ rule, subject, message });
  const named = packages.map((pkg) => `${pkg.name}@${pkg.version}`).join(', ');
  const versions = [...new Set(packages.map((pkg) => pkg.version))];
  if (versions.length !== 1)
    problem(
      'versions',
      named,
      `the fixed group's versions disagree: ${named} (\`pnpm version-packages\` versions them together)`,
    );
  const version = versions.length === 1 ? versions[0] : undefined;
  const pending = pendingChangesets(root);
  if (packages.every((pkg) => pkg.version.startsWith('0.')))
    for (const file of pending) {
      const text = readFileSync(join(root, '.changeset', file), 'utf8');
      const front = text.startsWith('---') ? text.slice(3, text.indexOf('\n---', 3)) : '';
      if (/:\s*['"]?major['"]?\s*$/m.test(front))
        problem(
          'major',
          file,
          `.changeset/${file} asks for a major bump, which would release 1.0.0: before 1.0, a breaking change is a minor one`,
        );
    }
  for (const pkg of packages) {
    if (pkg.version === UNRELEASED_VERSION) continue;
    const changelog = join(pkg.dir, 'CHANGELOG.md');
    if (!existsSync(changelog))
      problem(
        'changelog',
        pkg.name,
        `${pkg.name}@${pkg.version} has no CHANGELOG.md (\`changeset version\` writes it)`,
      );
    else if (!readFileSync(changelog, 'utf8').split('\n').includes(`## ${pkg.version}`))
      problem(
        'changelog',
        pkg.name,
        `${pkg.name}'s CHANGELOG.md has no "## ${pkg.version}" section`,
      );
  }
  if (version !== undefined && version !== UNRELEASED_VERSION) {
    const notes = releaseNotesPath(root, version);
    if (!existsSync(notes))
      problem(
        'release-notes',
        `docs/releases/${version}.md`,
        `the release notes of ${version}, docs/releases/${version}.md, are missing`,
      );
    else if (readFileSync(notes, 'utf8').includes(LATE_CHANGES_MARKER))
      problem(
        'release-notes',
        `docs/releases/${version}.md`,
        `docs/releases/${version}.md still has its "${LATE_CHANGES_MARKER}" section: add the late changesets' bullets and delete it`,
      );
  }
  if (tag !== undefined) {
    if (!packages.some((pkg) => tag === `${pkg.name}@${pkg.version}`))
      problem('tag', tag, `the tag ${tag} names no published package at its version (${named})`);
    if (pending.length > 0)
      problem(
        'pending',
        pending.join(', '),
        `${pending.length} changeset(s) are pending (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''}): a tagged commit is one whose changesets \`pnpm version-packages\` has consumed`,
      );
  }
  return { version, problems };
}

/**
 * The comment that opens the section of release notes written before the version step, where the
 * maintainer adds the changesets that landed later; a released version's notes no longer have it.
 */
export const LATE_CHANGES_MARKER = '<!-- release:';

/** Where the release notes of `version` are: `docs/releases/<version>.md`. */
export function releaseNotesPath(root, version) {
  return join(root, 'docs', 'releases', `${version}.md`);
}

/**
 * Versions, builds and publishes the workspace at `root`: the one code path of `pnpm release`.
 *
 * @param {{ root: string, registry?: string, env?: NodeJS.ProcessEnv, stdio?: 'inherit' | 'pipe' }}
 *   options
 *   `registry`: where to publish (default: the npm configuration's, npm's own registry);
 *   `env`: the environment of every command (default: this process's).
 * @returns {{ versioned: string[] }} the changeset files that versioning consumed
 */
export function release({ root, registry, env = process.env, stdio = 'inherit' }) {
  // changesets reads the registry from npm_config_registry, and so does the npm it publishes with.
  const commandEnv = registry === undefined ? env : { ...env, npm_config_registry: registry };
  const run = (args) => {
    const result = spawnSync('pnpm', args, { cwd: root, env: commandEnv, stdio, encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(
        `pnpm ${args.join(' ')} failed (exit ${result.status}) in ${root}${stdio === 'pipe' ? `:\n${result.stdout}\n${result.stderr}` : '; see its output above'}`,
      );
  };
  const versioned = pendingChangesets(root);
  // pnpm's lockfile records workspace packages as links, not versions: versioning leaves it be.
  if (versioned.length > 0) run(['exec', 'changeset', 'version']);
  // After versioning: the server and the proxy build their own version into dist.
  run(['exec', 'turbo', 'run', 'build', '--filter=./packages/*', '--output-logs=errors-only']);
  run(['exec', 'changeset', 'publish']);
  return { versioned };
}

/** `--dry-run`: builds, packs each public package and lists what it would upload. */
function dryRun(root) {
  const run = (command, args, options = {}) => {
    const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', ...options });
    if (result.status !== 0) {
      process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
      process.exit(result.status ?? 1);
    }
    return result.stdout;
  };
  run(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', '--filter=./packages/*', '--output-logs=errors-only'],
    {
      stdio: 'inherit',
    },
  );
  const out = mkdtempSync(join(tmpdir(), 's2sp-release-'));
  try {
    for (const dir of readdirSync(join(root, 'packages'))) {
      const manifest = JSON.parse(
        readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'),
      );
      if (manifest.private) continue;
      const tarball = run('pnpm', ['pack', '--pack-destination', out], {
        cwd: join(root, 'packages', dir),
      })
        .trim()
        .split('\n')
        .at(-1);
      const files = run('tar', ['-tzf', tarball]).trim().split('\n');
      const inner = JSON.parse(run('tar', ['-xOzf', tarball, 'package/package.json']));
      const deps = Object.entries(inner.dependencies ?? {})
        .map(([name, range]) => `${name}@${range}`)
        .join(', ');
      console.log(
        `${inner.name}@${inner.version}: ${files.length} files${deps ? `; depends on ${deps}` : ''}`,
      );
    }
    const pending = pendingChangesets(root).length;
    console.log(
      `\nDry run: nothing was versioned or published. Without --dry-run, \`changeset version\` consumes the ${pending} pending changeset(s) and \`changeset publish\` uploads the new versions and tags them.`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const args = process.argv.slice(2);
  const at = args.indexOf('--registry');
  const registry = at === -1 ? undefined : args[at + 1];
  if (at !== -1 && !registry?.startsWith('http')) {
    console.error('--registry takes the registry URL, e.g. --registry http://127.0.0.1:4873/');
    process.exit(2);
  }
  const checkAt = args.indexOf('--check');
  if (checkAt !== -1) {
    // `--check [<tag>]`: the release rules (releaseProblems), before a tag is made or published.
    const tag = args[checkAt + 1]?.startsWith('--') ? undefined : args[checkAt + 1];
    const { version, problems } = releaseProblems(root, { tag });
    for (const { message } of problems) console.error(`release check: ${message}`);
    if (problems.length > 0) process.exit(1);
    console.log(
      version === UNRELEASED_VERSION
        ? `release check: ${version}, not released yet: nothing to check`
        : `release check: ${version}${tag ? ` (tag ${tag})` : ''} is ready to publish`,
    );
  } else if (args.includes('--dry-run')) dryRun(root);
  else {
    try {
      release({ root, registry });
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  }
}
