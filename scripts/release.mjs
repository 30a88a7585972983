// `pnpm release [--dry-run]`: build, then publish the @s2sp/* packages that changesets versioned.
// `changeset publish` has no dry run, and `pnpm -r publish --dry-run` still asks the registry
// which versions exist; so `--dry-run` packs every public package with `pnpm pack` (which, like
// publishing, turns workspace: and catalog: ranges into real versions) and lists what each
// tarball would upload. It needs no registry at all.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dryRun = process.argv.includes('--dry-run');
const run = (command, args, options = {}) => {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
  return result;
};

run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only']);
if (!dryRun) {
  run('pnpm', ['exec', 'changeset', 'publish']);
  process.exit(0);
}

const out = mkdtempSync(join(tmpdir(), 's2sp-release-'));
try {
  for (const dir of readdirSync(join(root, 'packages'))) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    const packed = spawnSync('pnpm', ['pack', '--pack-destination', out], {
      cwd: join(root, 'packages', dir),
      encoding: 'utf8',
    });
    if (packed.status !== 0) {
      process.stderr.write(packed.stderr);
      process.exit(1);
    }
    const tarball = packed.stdout.trim().split('\n').at(-1);
    const files = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n');
    const inner = JSON.parse(
      spawnSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' }).stdout,
    );
    const deps = Object.entries(inner.dependencies ?? {})
      .map(([name, range]) => `${name}@${range}`)
      .join(', ');
    console.log(
      `${inner.name}@${inner.version}: ${files.length} files${deps ? `; depends on ${deps}` : ''}`,
    );
  }
  console.log(
    '\nDry run: nothing was published. Without --dry-run, `changeset publish` uploads the new versions and tags them.',
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
