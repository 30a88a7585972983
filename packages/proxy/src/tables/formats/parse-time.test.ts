/**
 * Every text parser of the proxy takes time linear in its input, whatever an upstream writes: a
 * property test over hostile texts (runs of `&`, quotes, pipes, brackets, backslashes, `<`,
 * unterminated entities) that times each parser on a text and on the same text eight times as
 * long. Quadratic work shows as a ratio of about 64, linear as about 8; the bound is 20, since
 * on a shared machine the longer text also pays for more garbage collection and cache misses
 * (ratios up to about 15 were seen for linear parsers), and each time is the best of a few runs
 * after a warm-up on both texts (no absolute timings). Times are this process's CPU time, not the
 * wall clock: on a machine shared with other jobs a parse descheduled for a while would otherwise
 * read as slow. A ratio over the bound is measured again, up to {@link ATTEMPTS} times: linear
 * work comes in under it on one attempt at least, quadratic work (about 64) never does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../mcp-sdk.js';
import { takeLargeStrings } from '../../upstream/large-strings.js';
import { findTable } from '../detect/find-table.js';
import { parseDelimited } from './csv.js';
import { decodeEntities, findHtmlTable } from './html-table.js';
import { arrayElementRanges, arrayElementTexts } from './json-rows.js';
import { parseJsonLines } from './jsonl.js';
import { findMarkdownTable } from './markdown.js';

/** The pieces hostile texts are made of. */
const PIECE = fc.constantFrom(
  '&',
  '&&',
  '&#x',
  '&#12',
  '&amp',
  '&amp;',
  ';',
  '"',
  '""',
  "'",
  '|',
  '\\|',
  '\\',
  '\\"',
  '[',
  ']',
  '{',
  '}',
  '<',
  '<td',
  '<td>',
  '</td>',
  '<tr>',
  '<!--',
  '>',
  ',',
  '\t',
  '\n',
  '\r',
  ':',
  '-',
  ' ',
  'a',
  '1',
);

/** A hostile unit: a few pieces, repeated to make a text. */
const UNIT = fc.array(PIECE, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(''));

const MAX = 100_000_000;
const limits = { maxCells: MAX, maxCellChars: MAX, maxFields: MAX, maxRows: MAX };

/** A one-cell HTML table around `text`. */
const html = (text: string) => `<table><tr><th>a</th></tr><tr><td>${text}</td></tr></table>`;

/** The proxy's whole detection, every format tried, on one text block. */
const detect = (text: string) =>
  findTable({ content: [{ type: 'text', text }] } as CallToolResult, { maxTextLength: MAX });

/** Where a hostile text is put, so each parser gets past its opening and into its loops. */
const PARSERS: readonly [string, (text: string) => unknown][] = [
  ['decodeEntities', (t) => decodeEntities(t)],
  ['HTML table', (t) => findHtmlTable(html(t), limits)],
  ['HTML table, unclosed', (t) => findHtmlTable(`<table><tr><th>a</th></tr><tr><td>${t}`, limits)],
  ['HTML tags', (t) => findHtmlTable(`<table><tr><td ${t}`, limits)],
  ['CSV', (t) => parseDelimited(`a,b\n"${t}`, ',', limits)],
  ['CSV unquoted', (t) => parseDelimited(`a,b\n${t}`, ',', limits)],
  ['TSV', (t) => parseDelimited(`a\tb\n${t}`, '\t', limits)],
  ['Markdown', (t) => findMarkdownTable(`| a | b |\n|---|---|\n| ${t}`, limits)],
  ['Markdown lines', (t) => findMarkdownTable(t, limits)],
  ['JSON Lines', (t) => parseJsonLines(`{"a":1}\n${t}`, limits)],
  ['JSON scanner', (t) => arrayElementTexts(`[{"a":"${t}`)],
  ['JSON scanner (bytes)', (t) => arrayElementRanges(Buffer.from(`[{"a":"${t}`))],
  ['findTable', (t) => detect(t)],
  ['findTable on an HTML table', (t) => detect(html(t))],
];

/** Most the time may grow for a text eight times as long. */
const RATIO = 20;
/**
 * The shortest time a ratio is taken from, in ms: below it a timing is mostly noise. Quadratic
 * work on the shorter texts here takes far longer (a search to the end for each `&` of 50,000).
 */
const FLOOR_MS = 5;

/** Measurements of one ratio before it counts as over the bound. */
const ATTEMPTS = 3;

/** This process's CPU time (user and system), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The best of `runs` CPU timings of `run`, in ms. */
function best(run: () => unknown, runs = 3): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = cpuMs();
    run();
    least = Math.min(least, cpuMs() - start);
  }
  return least;
}

/** Time on 8n over time on n (counted as at least {@link FLOOR_MS}), the least of the attempts. */
function growth(parse: (text: string) => unknown, unit: string, chars: number) {
  const small = unit.repeat(Math.ceil(chars / unit.length));
  const large = small.repeat(8);
  // Warm-up on both, so that neither timing includes compiling a path the other took.
  parse(small);
  parse(large);
  let least = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < ATTEMPTS && least >= RATIO; attempt++) {
    const t1 = best(() => parse(small));
    const t8 = best(() => parse(large));
    least = Math.min(least, t8 / Math.max(t1, FLOOR_MS));
  }
  return least;
}

describe('every text parser is linear in its input', () => {
  it.each(PARSERS)('%s', (_, parse) => {
    fc.assert(
      fc.property(UNIT, (unit) => {
        expect(growth(parse, unit, 50_000)).toBeLessThan(RATIO);
      }),
      { numRuns: 10 },
    );
  });

  it('the large-string scanner of upstream lines', () => {
    fc.assert(
      fc.property(UNIT, (unit) => {
        const line = (chars: number) => {
          const text = JSON.stringify(unit.repeat(Math.ceil(chars / unit.length)));
          return Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":${text}}]}}`);
        };
        // It changes the line's bytes: each run gets a fresh copy, made before the clock starts.
        const time = (bytes: Buffer) => {
          const copies = [1, 2, 3].map(() => Buffer.from(bytes));
          return best(() => takeLargeStrings(copies.pop() as Buffer), 3);
        };
        time(line(1_100_000));
        const ratio = time(line(8_800_000)) / Math.max(time(line(1_100_000)), FLOOR_MS);
        expect(ratio).toBeLessThan(RATIO);
      }),
      { numRuns: 5 },
    );
  });
});
