/**
 * The committed figure files (`RELIABILITY.md`, `bench/BENCHMARKS.md`) are exactly what their
 * generators make from the committed raw results (`reliability/raw/`, `bench/raw/`): a figure
 * edited by hand, a raw record changed without regenerating, or a generator changed without
 * regenerating each fails here, naming the file and `pnpm figures`.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIGURES_COMMAND, generateFigureFiles, staleFigureFiles } from './figures.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A copy of the raw folder `dir` (relative to the root) whose first record `change` edits. */
function tamperedCopy(dir: string, change: (record: Record<string, unknown>) => void): string {
  const copy = mkdtempSync(join(tmpdir(), 'figures-raw-'));
  cpSync(join(root, dir), copy, { recursive: true });
  const first = readdirSync(copy)
    .filter((name) => name.endsWith('.json'))
    .sort()[0];
  expect(first, `${dir} holds no raw record`).toBeDefined();
  const file = join(copy, first as string);
  const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(record);
  writeFileSync(file, JSON.stringify(record));
  return copy;
}

describe('figure files', () => {
  it('RELIABILITY.md and bench/BENCHMARKS.md are what `pnpm figures` makes from the raw results', () => {
    const stale = staleFigureFiles(generateFigureFiles());
    expect(stale.map((s) => s.message)).toEqual([]);
  });

  it('the generators give the same bytes for the same raw results', () => {
    const once = generateFigureFiles().map((f) => f.text);
    const twice = generateFigureFiles().map((f) => f.text);
    expect(twice).toEqual(once);
    expect(once.every((text) => text.length > 1000)).toBe(true);
  });

  it('a committed figure file edited by hand is found, naming the file and the command', () => {
    const generated = generateFigureFiles();
    const edited = (file: string) => {
      const text = readFileSync(join(root, file), 'utf8');
      return file === 'RELIABILITY.md' ? text.replace(/\| ✅ \|/, '| ❌ not met |') : text;
    };
    const stale = staleFigureFiles(generated, edited);
    expect(stale.map((s) => s.file)).toEqual(['RELIABILITY.md']);
    expect(stale[0]?.message).toContain(FIGURES_COMMAND);
  });

  it('a missing figure file is found', () => {
    const stale = staleFigureFiles(generateFigureFiles(), (file) => {
      if (file === 'bench/BENCHMARKS.md') throw new Error('ENOENT');
      return readFileSync(join(root, file), 'utf8');
    });
    expect(stale.map((s) => s.file)).toEqual(['bench/BENCHMARKS.md']);
  });

  it('a raw reliability record changed without regenerating is found', () => {
    const reliabilityRaw = tamperedCopy('reliability/raw', (record) => {
      const figures = record.figures as { value: unknown }[];
      (figures[0] as { value: unknown }).value = 'tampered';
    });
    const stale = staleFigureFiles(generateFigureFiles({ reliabilityRaw }));
    expect(stale.map((s) => s.file)).toEqual(['RELIABILITY.md']);
  });

  it("a raw benchmark record changed without regenerating is found (its run's load)", () => {
    const benchRaw = tamperedCopy('bench/raw', (record) => {
      const measured = record.measured as { loadAverage: { start: number[] } };
      measured.loadAverage.start = [0, 0, 0];
    });
    const stale = staleFigureFiles(generateFigureFiles({ benchRaw }));
    expect(stale.map((s) => s.file)).toEqual(['bench/BENCHMARKS.md']);
  });
});
