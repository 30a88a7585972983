// The CHANGELOG.md entries `changeset version` writes (config.json's "changelog"): each changeset's
// sentences as they stand, for a user to read, without the commit hash the built-in formatter puts
// in front; and, where the built-in one lists "Updated dependencies [hash]" once per changeset of
// another package (35 lines in a package's first release), one line naming the @s2sp/* packages
// of the same release it depends on. The five packages are one `fixed` group, so a package always
// depends on the others at its own version. No GitHub token and no network: versioning stays
// offline. Kept here, beside config.json, so a copy of `.changeset` (the packaging test's and
// scripts/release.test.ts's) versions the same way.
'use strict';

/** One changeset's entry: its summary, the lines after the first indented under the bullet. */
async function getReleaseLine(changeset) {
  const [first = '', ...rest] = changeset.summary.split('\n').map((line) => line.trimEnd());
  return [`- ${first}`, ...rest.map((line) => (line ? `  ${line}` : ''))].join('\n');
}

/** One line for the @s2sp/* packages this package depends on that this release versions too. */
async function getDependencyReleaseLine(_changesets, dependenciesUpdated) {
  if (dependenciesUpdated.length === 0) return '';
  const named = dependenciesUpdated.map((dep) => `\`${dep.name}@${dep.newVersion}\``);
  const list = named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named.at(-1)}` : named[0];
  return `- Uses ${list} from this same release.`;
}

module.exports = { getReleaseLine, getDependencyReleaseLine };
