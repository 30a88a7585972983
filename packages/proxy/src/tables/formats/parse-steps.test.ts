import { describe, expect, it } from 'vitest';
import { delimitedSteps } from './csv.js';
import { headerRowsSteps } from './header-rows.js';
import { htmlTableSteps } from './html-table.js';
import { elementRangesSteps, elementTextsSteps } from './json-rows.js';
import { jsonLinesSteps } from './jsonl.js';
import { markdownTableSteps } from './markdown.js';
import { PAUSE_EVERY, runInSlices, runNow, type Steps } from './parse-steps.js';

const MAX = 100_000_000;
const CHARS = 2_000_000;

/** How often `steps` pauses, and what it returns. */
function pauses<T>(steps: Steps<T>): { count: number; value: T } {
  let count = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { count, value: next.value };
    count++;
  }
}

const htmlRows = (rows: number) =>
  `<table><tr><th>a</th><th>b</th></tr>${'<tr><td>1</td><td>x</td></tr>'.repeat(rows)}</table>`;

/** Long inputs, each in one place a parser might run without pausing. */
const LONG: readonly [string, () => Steps<unknown>][] = [
  [
    'HTML, many rows',
    () => htmlTableSteps(htmlRows(CHARS / 30), { maxCells: MAX, maxCellChars: MAX }),
  ],
  [
    'HTML, one cell',
    () =>
      htmlTableSteps(`<table><tr><td>${'<b>a</b>'.repeat(CHARS / 8)}</td></tr></table>`, {
        maxCells: MAX,
        maxCellChars: MAX,
      }),
  ],
  ['CSV, many rows', () => delimitedSteps('a,b\n1,x\n'.repeat(CHARS / 8), ',', { maxFields: MAX })],
  [
    'CSV, one quoted field',
    () => delimitedSteps(`a\n"${'""'.repeat(CHARS / 2)}"`, ',', { maxFields: MAX }),
  ],
  [
    'CSV, one unquoted field',
    () => delimitedSteps(`a\n${'x'.repeat(CHARS)}`, ',', { maxFields: MAX }),
  ],
  [
    'Markdown, many rows',
    () =>
      markdownTableSteps(`| a | b |\n|---|---|\n${'| 1 | x |\n'.repeat(CHARS / 10)}`, {
        maxCells: MAX,
      }),
  ],
  [
    'Markdown, one line',
    () => markdownTableSteps(`| a |\n|---|\n| ${'x\\|'.repeat(CHARS / 3)} |`, { maxCells: MAX }),
  ],
  ['JSON Lines', () => jsonLinesSteps('{"a":1}\n'.repeat(CHARS / 8), { maxRows: MAX })],
  ['JSON scanner, many rows', () => elementTextsSteps(`[${'{"a":1},'.repeat(CHARS / 8)}{"a":1}]`)],
  [
    'JSON scanner, one row',
    () => elementRangesSteps(Buffer.from(`[{"a":[${'1,'.repeat(CHARS / 2)}1]}]`)),
  ],
  [
    'header rows',
    () =>
      headerRowsSteps(
        ['a', 'b'],
        Array.from({ length: CHARS / 2 }, () => ['1', 'x']),
        { typeNumbers: true, firstLine: 2, unit: 'line' },
      ),
  ],
];

describe('each parser pauses as it goes', () => {
  it.each(LONG)('%s', (_, steps) => {
    // About one pause per PAUSE_EVERY units of work (characters, cells or rows): at least a
    // few dozen over two million characters, whichever loop the input keeps it in.
    expect(pauses(steps()).count).toBeGreaterThan(CHARS / PAUSE_EVERY / 8);
  });
});

describe('runInSlices', () => {
  it('gives the same answer as runNow', async () => {
    const table = htmlRows(1_000);
    const limits = { maxCells: MAX, maxCellChars: MAX };
    expect(await runInSlices(htmlTableSteps(table, limits))).toEqual(
      runNow(htmlTableSteps(table, limits)),
    );
  });

  it('serves the event loop during a long parse; runNow does not', async () => {
    const table = htmlRows(200_000);
    const limits = { maxCells: MAX, maxCellChars: MAX };
    const served = async (run: () => Promise<unknown>) => {
      let turns = 0;
      let stop = false;
      const turn = () => {
        turns++;
        if (!stop) setImmediate(turn);
      };
      setImmediate(turn);
      await run();
      const during = turns;
      stop = true;
      return during;
    };
    expect(await served(async () => runNow(htmlTableSteps(table, limits)))).toBe(0);
    expect(await served(() => runInSlices(htmlTableSteps(table, limits)))).toBeGreaterThan(2);
  });
});
