// `node scripts/tag-release.mjs`: tags the version commit that `pnpm version-packages` made, after
// the maintainer has committed it on main. It checks the release rules first (releaseProblems in
// scripts/release.mjs: one version for the fixed group, a CHANGELOG.md section per package, the
// release notes, no changeset pending, a clean working tree), then runs `changeset tag`, which
// makes one annotated tag per package, `@s2sp/<name>@<version>` (the changesets convention,
// the same tags `changeset publish` makes), and prints the commands that push them.
//
// Each tag is pushed on its own, @s2sp/core's last: GitHub starts no workflow for tags pushed
// more than three at once, and the release workflow (.github/workflows/release.yml) is started by
// @s2sp/core's tag alone, so the five packages publish once, from one run.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { publishedPackages, releaseProblems, UNRELEASED_VERSION } from './release.mjs';

/** The package whose tag starts the release workflow (every release versions the fixed group). */
export const TRIGGER_PACKAGE = '@s2sp/core';

/**
 * The tags of the release at `root`, `@s2sp/<name>@<version>` for each published package, with
 * the tag that starts the release workflow last.
 *
 * @param {string} root
 * @returns {string[]}
 */
export function releaseTags(root) {
  return publishedPackages(root)
    .map(({ name, version }) => `${name}@${version}`)
    .sort(
      (a, b) =>
        Number(a.startsWith(`${TRIGGER_PACKAGE}@`)) - Number(b.startsWith(`${TRIGGER_PACKAGE}@`)),
    );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const fail = (message) => {
    console.error(`tag-release: ${message}`);
    process.exit(1);
  };
  const { version } = releaseProblems(root);
  if (version === UNRELEASED_VERSION)
    fail(`the packages are at ${version}: run \`pnpm version-packages\` and commit first`);
  const { problems } = releaseProblems(root, { tag: `${TRIGGER_PACKAGE}@${version}` });
  if (problems.length > 0) fail(problems.map(({ message }) => message).join('\n'));
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  if (status.status !== 0 || status.stdout.trim() !== '')
    fail(`commit the version bump first; uncommitted changes:\n${status.stdout}${status.stderr}`);
  const tagged = spawnSync('pnpm', ['exec', 'changeset', 'tag'], { cwd: root, stdio: 'inherit' });
  if (tagged.status !== 0) fail(`\`changeset tag\` failed (exit ${tagged.status})`);
  const tags = releaseTags(root);
  const missing = tags.filter(
    (tag) => git(['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`]).status !== 0,
  );
  if (missing.length > 0) fail(`\`changeset tag\` left out ${missing.join(', ')}`);
  console.log(
    `\nTagged ${version}. Push the commit, then each tag on its own (${TRIGGER_PACKAGE}'s starts the release workflow):\n`,
  );
  console.log('git push origin main');
  for (const tag of tags) console.log(`git push origin ${tag}`);
}
