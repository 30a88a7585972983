import { estimateTokens, TOKEN_ESTIMATE_ERROR } from '@s2sp/server';
import { tokenCorpus } from '@s2sp/test-utils';
import { nwsAlertFixtures } from './data.js';
import type { BenchRow } from './report.js';
import { median, round } from './stats.js';
import { countTokens } from './tokenizer.js';

const SECTION = '1b. The token estimator (savings receipt, token budget) against o200k_base';

/** The corpus shapes and the recorded NWS sets, as compact JSON. */
function shapes(): { name: string; group: string; text: string }[] {
  return [
    ...tokenCorpus(),
    ...nwsAlertFixtures().map(({ name, rows }) => ({
      name: `NWS ${name.replace(/^alerts-active-|\.json$/g, '')}`,
      // The estimator's constants were fitted on the two older sets.
      group: name.includes('2026-09-13') ? 'held-out' : 'calibration',
      text: JSON.stringify(rows),
    })),
  ];
}

/**
 * `estimateTokens` against js-tiktoken's o200k_base on every shape of the test corpus and the
 * recorded NWS alerts (target: within ±10% on each), and its speed in µs per KB of text (it runs
 * on every S2SP result: the plain table and the model's text).
 */
export function tokenEstimatorRows(quick: boolean): BenchRow[] {
  const all = shapes();
  const rows: BenchRow[] = all.map(({ name, group, text }) => {
    const counted = countTokens(text).o200k_base;
    const estimate = estimateTokens(text);
    const error = estimate / counted - 1;
    return {
      section: SECTION,
      name: name.includes('(') ? name : `${name} (${group})`,
      values: {
        KB: round(text.length / 1024),
        o200k: counted,
        estimate,
        'error %': round(100 * error),
      },
      target: `within ±${100 * TOKEN_ESTIMATE_ERROR}% of o200k_base`,
      met: Math.abs(error) <= TOKEN_ESTIMATE_ERROR,
    };
  });
  const texts = all.map((shape) => shape.text);
  const kb = texts.reduce((sum, text) => sum + text.length, 0) / 1024;
  let sink = 0;
  for (let warm = 0; warm < 3; warm++) for (const text of texts) sink += estimateTokens(text);
  const samples: number[] = [];
  for (let run = 0; run < (quick ? 7 : 21); run++) {
    const started = performance.now();
    for (const text of texts) sink += estimateTokens(text);
    samples.push(((performance.now() - started) * 1000) / kb);
  }
  rows.push({
    section: SECTION,
    name: 'estimateTokens speed',
    how: `every shape above (${round(kb)} KB of JSON) in one process, median of ${samples.length} passes after 3 warm-up passes`,
    values: { 'µs per KB': round(median(samples)), checksum: sink > 0 ? 'ok' : 'none' },
  });
  return rows;
}
