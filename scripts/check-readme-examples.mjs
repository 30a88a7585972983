#!/usr/bin/env node
// README code samples cannot drift: a fenced block preceded by `<!-- example: path -->` must be
// exactly that file (relative to the README), or with `path#name` exactly the part of it between
// `// #region name` and `// #endregion` (so a sample can declare what it assumes above the
// region). The files are type-checked (and run, where a test imports them) with their package.
// Run by `pnpm test`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readmes = [join(root, 'README.md')];
for (const group of ['packages', 'apps']) {
  for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
    if (entry.isDirectory()) readmes.push(join(root, group, entry.name, 'README.md'));
  }
}

const MARKER = /<!-- example: ([^\s#]+)(?:#(\S+))? -->\s*\n```[a-z]*\n([\s\S]*?)```/g;
let checked = 0;
const failures = [];
for (const readme of readmes) {
  let text;
  try {
    text = readFileSync(readme, 'utf8');
  } catch {
    continue;
  }
  for (const [, path, region, block] of text.matchAll(MARKER)) {
    const file = join(dirname(readme), path);
    let source;
    try {
      source = readFileSync(file, 'utf8');
    } catch {
      failures.push(`${relative(root, readme)}: example ${path} does not exist`);
      continue;
    }
    if (region) {
      const match = new RegExp(`// #region ${region}\\n([\\s\\S]*?)// #endregion`).exec(source);
      if (!match) {
        failures.push(`${relative(root, readme)}: ${path} has no "// #region ${region}"`);
        continue;
      }
      source = match[1];
    }
    checked++;
    if (source.trim() !== block.trim())
      failures.push(`${relative(root, readme)}: the block under ${path} differs from the file`);
  }
}
if (failures.length > 0) {
  console.error(
    `README examples out of date (copy each file into its block):\n- ${failures.join('\n- ')}`,
  );
  process.exit(1);
}
console.log(`README examples: ${checked} blocks match their files.`);
