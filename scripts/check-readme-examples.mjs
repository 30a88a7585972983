#!/usr/bin/env node
// README code samples cannot drift: a fenced block preceded by `<!-- example: path -->` must be
// exactly that file (relative to the README), and the file is type-checked (and run, where a test
// imports it) with its package. Run by `pnpm test`.
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

const MARKER = /<!-- example: (\S+) -->\s*\n```[a-z]*\n([\s\S]*?)```/g;
let checked = 0;
const failures = [];
for (const readme of readmes) {
  let text;
  try {
    text = readFileSync(readme, 'utf8');
  } catch {
    continue;
  }
  for (const [, path, block] of text.matchAll(MARKER)) {
    const file = join(dirname(readme), path);
    let source;
    try {
      source = readFileSync(file, 'utf8');
    } catch {
      failures.push(`${relative(root, readme)}: example ${path} does not exist`);
      continue;
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
