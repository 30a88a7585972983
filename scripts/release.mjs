// `pnpm release [--registry <url>] [--dry-run]`: version the @s2sp/* packages with the pending
// changesets (`changeset version`: new versions, CHANGELOG.md files, the changeset files
// consumed), build them, and publish the versions the registry lacks (`changeset publish`, which
// also tags them in git). Run from a clean checkout of main; commit the version bump and push
// the tags afterwards. In CI, the release workflow (.github/workflows/release.yml) runs the
// versioning as a pull request and this script after that pull request is merged, when no
// changeset is pending, so it only builds and publishes.
//
// --registry <url> publishes to that registry instead of npm's (the packaging test publishes to
// a local Verdaccio this way, through this same function, in a temporary copy of the workspace).
//
// `changeset publish` has no dry run, and `pnpm -r publish --dry-run` still asks the registry
// which versions exist; so `--dry-run` versions nothing and packs every public package with
// `pnpm pack` (which, like publishing, turns workspace: and catalog: ranges into real versions)
// and lists what each tarball would upload. It needs no registry at all.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  if (args.includes('--dry-run')) dryRun(root);
  else {
    try {
      release({ root, registry });
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  }
}
