#!/usr/bin/env node
// Every ```ts / ```typescript block in every README and in every page of the documentation site
// (`docs/`, except the generated API reference) is type-checked, so no sample can drift from the
// code it documents. Run by `pnpm test` (after the build: samples import the packages by name, as a
// user would, and resolve to their built `dist` types). Given Markdown files as arguments, it checks
// those alone (`node scripts/check-readme-examples.mjs docs/guide/consumer.md`).
//
// Each block is compiled as a module of its own, with the compiler options and the dependencies of
// the package whose README holds it (strict, noUncheckedIndexedAccess); a docs page compiles in the
// package `DOCS_COMPILE_IN` names for it, else in packages/server. A site page's fence may carry a
// VitePress label or line highlights (```ts [SDK v1], ```ts {2,3}). Two HTML comments, on the
// line before a block, say what a block takes from outside itself:
//
// - `<!-- example: path -->`: the block must be exactly that file (relative to the README), or with
//   `path#name` exactly the part of it between `// #region name` and `// #endregion name`. The file's
//   lines above the region are the block's preamble when it is compiled (what the sample assumes,
//   such as `declare const weatherClient: Client`). The file is also type-checked with its package
//   and run where a test imports it. (A docs page shows such a file with VitePress's
//   `<<< @/../path#name` instead, which copies nothing.)
// - `<!-- assume: declarations -->`: TypeScript placed before the block when it is compiled, for a
//   sample that continues from values the prose describes (a `resourceUrl` an agent received, the
//   reader's own store). Keep these rare; prefer a sample that stands on its own.
//
// A failure names the file and the line of the sample: `packages/core/README.md:24:7 TS2304 …`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// The root README's samples adopt @s2sp/server; the root package has no runtime dependencies of its
// own, so they compile as part of packages/server, whose dependencies are the ones the root README
// tells the reader to install.
const COMPILE_IN = { 'README.md': 'packages/server' };

// The documentation site's pages whose samples need another package's dependencies than
// packages/server's (a framework adapter, the proxy, a Redis client).
const DOCS_COMPILE_IN = {
  'docs/guide/agent-frameworks.md': 'packages/client',
  'docs/guide/proxy.md': 'packages/proxy',
  'docs/guide/redis.md': 'packages/cache-redis',
};

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.turbo', 'coverage', 'packs']);
// In docs/: the generated API reference, and the tests' fixture pages (checked by those tests).
const SKIP_DOCS_DIRS = new Set(['api', 'test']);
/** Every README, and every Markdown page of the documentation site under docs/. */
function findPages(dir, inDocs = false) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIP_DIRS.has(entry.name) || entry.name.startsWith('.')) continue;
      if (inDocs && SKIP_DOCS_DIRS.has(entry.name)) continue;
      found.push(...findPages(path, inDocs || relative(root, path) === 'docs'));
    } else if (
      entry.isFile() &&
      (entry.name === 'README.md' || (inDocs && entry.name.endsWith('.md')))
    )
      found.push(path);
  }
  return found;
}

const failures = [];
/** Collects every TypeScript block of one README or page, with its preamble and its first line. */
function blocksOf(readme) {
  const text = readFileSync(readme, 'utf8');
  const lines = text.split('\n');
  const name = relative(root, readme);
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)(\s*\{[\d,-]*\})?(\s+\[[^\]]*\])?\s*$/.test(lines[i])) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end === -1) {
      failures.push(`${name}:${i + 1} the code block never closes`);
      break;
    }
    const code = lines.slice(i + 1, end).join('\n');
    const marker = lines[i - 1] ?? '';
    let preamble = '';
    const example = /^<!-- example: ([^\s#]+)(?:#(\S+))? -->$/.exec(marker);
    const assume = /^<!-- assume: (.+) -->$/.exec(marker);
    if (example) {
      const [, path, region] = example;
      let source;
      try {
        source = readFileSync(join(dirname(readme), path), 'utf8');
      } catch {
        failures.push(`${name}:${i} example ${path} does not exist`);
        continue;
      }
      if (region) {
        const match = new RegExp(
          `^([\\s\\S]*?)// #region ${region}\\n([\\s\\S]*?)// #endregion`,
        ).exec(source);
        if (!match) {
          failures.push(`${name}:${i} ${path} has no "// #region ${region}"`);
          continue;
        }
        preamble = match[1];
        source = match[2];
      }
      if (source.trim() !== code.trim())
        failures.push(`${name}:${i + 2} the block differs from ${path}: copy the file into it`);
    } else if (assume) {
      preamble = `${assume[1]}\n`;
    }
    // The root README's samples are what a newcomer copies first: each is an example file that a
    // test runs (docs/test/samples-run.test.ts), not only type-checks.
    if (name === 'README.md' && !example)
      failures.push(`${name}:${i + 1} a root README sample must be an <!-- example: path --> file`);
    blocks.push({ readme: name, firstLine: i + 2, preamble, code });
  }
  return blocks;
}

/** Type-checks the blocks of one package in one program, each as a file of its own. */
function compile(dir, blocks) {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, dir, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error(`${dir}/tsconfig.json cannot be read`);
  // Virtual files beside the package's own, so bare imports resolve from its node_modules (and a
  // package's own name through its package.json `exports`).
  const files = new Map(
    blocks.map((block, index) => [
      join(root, dir, `__readme_sample_${index}.ts`),
      { block, text: block.preamble + block.code },
    ]),
  );
  const host = ts.createCompilerHost({ ...config.options, noEmit: true });
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file);
  host.readFile = (file) => files.get(file)?.text ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const virtual = files.get(file);
    return virtual
      ? ts.createSourceFile(file, virtual.text, language, true)
      : getSourceFile.call(host, file, language, ...rest);
  };
  const program = ts.createProgram([...files.keys()], { ...config.options, noEmit: true }, host);
  for (const diagnostic of program.getGlobalDiagnostics())
    failures.push(`${dir}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  for (const [file, { block }] of files) {
    const source = program.getSourceFile(file);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    const preambleLines = block.preamble.split('\n').length - 1;
    for (const diagnostic of diagnostics) {
      const { line, character } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const where =
        line < preambleLines
          ? `${block.readme}:${block.firstLine - 1} (in the sample's preamble)`
          : `${block.readme}:${block.firstLine + line - preambleLines}:${character + 1}`;
      failures.push(
        `${where} TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ')}`,
      );
    }
  }
}

/** The package a page's samples compile in: its own for a README, DOCS_COMPILE_IN for the site. */
function compileDir(name) {
  if (COMPILE_IN[name]) return COMPILE_IN[name];
  if (name.startsWith('docs/')) return DOCS_COMPILE_IN[name] ?? 'packages/server';
  return dirname(name);
}

const pages =
  process.argv.length > 2 ? process.argv.slice(2).map((file) => resolve(file)) : findPages(root);
const byDir = new Map();
let count = 0;
for (const readme of pages) {
  const blocks = blocksOf(readme);
  if (blocks.length === 0) continue;
  const name = relative(root, readme);
  const dir = compileDir(name);
  byDir.set(dir, [...(byDir.get(dir) ?? []), ...blocks]);
  count += blocks.length;
}
for (const [dir, blocks] of byDir) compile(dir, blocks);

if (failures.length > 0) {
  console.error(
    `Samples that do not type-check or match their files (${failures.length}):\n- ${failures.join('\n- ')}\n` +
      'Samples import the packages by name and resolve to their built types: run `pnpm build` first.',
  );
  process.exit(1);
}
console.log(
  `README and docs samples: ${count} TypeScript blocks in ${byDir.size} packages type-check.`,
);
