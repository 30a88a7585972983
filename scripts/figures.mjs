#!/usr/bin/env node
// `pnpm figures`: regenerates the two committed figure files from the committed raw results only —
// RELIABILITY.md from reliability/raw/ and bench/BENCHMARKS.md from bench/raw/ — without measuring
// anything. The same raw files always give the same bytes. `--check` writes nothing and exits 1
// when a committed file differs from what its generator makes (scripts/figures.test.ts runs the
// same comparison in `pnpm test`).
//
// Measuring and recording are separate commands, one section at a time if wanted:
//   reliability: SOAK=1 npx vitest run --project reliability [test files]
//                then node reliability/scripts/report.mjs --record --soak [--sections=9,33]
//   benchmarks:  node --expose-gc bench/dist/run.js --only=<benchmark> [--quick] --record
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_DIR, readBenchRaw, renderBenchmarks } from '../bench/scripts/report.mjs';
import {
  RELIABILITY_FILE,
  RELIABILITY_RAW_DIR,
  readReliabilityRaw,
  renderReliability,
} from '../reliability/scripts/report.mjs';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The command that regenerates both files. */
export const FIGURES_COMMAND = 'pnpm figures';

/**
 * Each committed figure file and what its generator makes of the raw folder now.
 *
 * @param {{ reliabilityRaw?: string, benchRaw?: string }} [dirs] other raw folders (for tests)
 */
export function generateFigureFiles(dirs = {}) {
  return [
    {
      file: relative(repoRoot, RELIABILITY_FILE),
      raw: relative(repoRoot, dirs.reliabilityRaw ?? RELIABILITY_RAW_DIR),
      text: renderReliability(readReliabilityRaw(dirs.reliabilityRaw)),
    },
    {
      file: relative(repoRoot, join(BENCH_DIR, 'BENCHMARKS.md')),
      raw: relative(repoRoot, dirs.benchRaw ?? join(BENCH_DIR, 'raw')),
      text: renderBenchmarks(readBenchRaw(dirs.benchRaw)),
    },
  ];
}

/**
 * The committed files that differ from what their generator makes, each with what to do.
 *
 * @param {ReturnType<typeof generateFigureFiles>} generated
 * @param {(file: string) => string} [read] reads a committed file (path relative to the root)
 */
export function staleFigureFiles(
  generated,
  read = (file) => readFileSync(join(repoRoot, file), 'utf8'),
) {
  const stale = [];
  for (const { file, raw, text } of generated) {
    let committed;
    try {
      committed = read(file);
    } catch {
      committed = undefined;
    }
    if (committed === text) continue;
    const firstLine =
      committed === undefined
        ? 0
        : committed.split('\n').findIndex((line, i) => line !== text.split('\n')[i]) + 1;
    stale.push({
      file,
      message: `${file} is not what its generator makes from ${raw}/${committed === undefined ? ' (the file is missing)' : ` (first difference at line ${firstLine})`}: run \`${FIGURES_COMMAND}\` and commit the result (to change a figure, record a run into ${raw}/ as CONTRIBUTING.md says; never edit the generated file).`,
    });
  }
  return stale;
}

function main(argv) {
  const generated = generateFigureFiles();
  if (argv.includes('--check')) {
    const stale = staleFigureFiles(generated);
    for (const { message } of stale) process.stderr.write(`figures: ${message}\n`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  for (const { file, text } of generated) {
    writeFileSync(join(repoRoot, file), text);
    process.stdout.write(`wrote ${file}\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  main(process.argv.slice(2));
