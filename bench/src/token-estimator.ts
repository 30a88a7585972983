import { estimateTokens, TOKEN_ESTIMATE_ERROR } from '@s2sp/server';
import { type EstimatorShape, estimatorShapes } from './estimator-shapes.js';
import type { BenchRow } from './report.js';
import { median, round } from './stats.js';
import { tokenizers } from './tokenizer.js';

const SECTION = '1b. The token estimator (savings receipt, token budget) against o200k_base';

/** One shape's o200k_base count, the estimate and its error (a fraction). */
export interface EstimatorError {
  readonly shape: EstimatorShape;
  readonly o200k: number;
  readonly estimate: number;
  readonly error: number;
}

/**
 * `estimateTokens` against js-tiktoken's o200k_base on every shape of {@link estimatorShapes}, one
 * error a shape: what `pnpm bench --only=tokens` prints, section 1b.
 */
export function estimatorErrors(): EstimatorError[] {
  return estimatorShapes().map((shape) => {
    const o200k = tokenizers.o200k_base.encode(shape.text).length;
    const estimate = estimateTokens(shape.text);
    return { shape, o200k, estimate, error: estimate / o200k - 1 };
  });
}

/**
 * `estimateTokens` against js-tiktoken's o200k_base on every shape of the test corpus, the
 * recorded NWS alerts, the held-out synthetic shapes and the real-server matrix's answers
 * (target: within ±10% on each), the worst error of each family, and its speed in µs per KB of
 * text (it runs on every S2SP result: the plain table and the model's text).
 */
export function tokenEstimatorRows(quick: boolean): BenchRow[] {
  const errors = estimatorErrors();
  const target = `within ±${100 * TOKEN_ESTIMATE_ERROR}% of o200k_base`;
  const rows: BenchRow[] = errors.map(({ shape, o200k, estimate, error }) => ({
    section: SECTION,
    name: `${shape.name} (${shape.family})`,
    values: {
      KB: round(shape.text.length / 1024),
      o200k,
      estimate,
      'error %': round(100 * error),
    },
    target,
    met: Math.abs(error) <= TOKEN_ESTIMATE_ERROR,
  }));
  for (const family of new Set(errors.map((e) => e.shape.family))) {
    const inFamily = errors.filter((e) => e.shape.family === family);
    const worst = inFamily.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
    rows.push({
      section: SECTION,
      name: `worst of ${family} (${inFamily.length} shapes)`,
      values: { 'error %': round(100 * worst.error), shape: worst.shape.name },
      target,
      met: Math.abs(worst.error) <= TOKEN_ESTIMATE_ERROR,
    });
  }
  const texts = errors.map((e) => e.shape.text);
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
    how: `every shape above (${round(kb)} KB of text) in one process, median of ${samples.length} passes after 3 warm-up passes`,
    values: { 'µs per KB': round(median(samples)), checksum: sink > 0 ? 'ok' : 'none' },
  });
  return rows;
}
