/**
 * The texts `estimateTokens` is measured on against o200k_base, by family: the test corpus
 * (`tokenCorpus`), the recorded NWS answers, the held-out synthetic shapes of the server's tests
 * (repetitive English notes compact and indented, CSV in a JSON string, numbers, ids and UUIDs,
 * URLs, …) and the real-server matrix's answers, rebuilt from its readings table (150 rows × 11
 * columns) in the layout each server prints (recorded in
 * `packages/proxy/test/fixtures/real-servers/`): the receipt counts those answers as they come.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { heldOutShapes, tokenCorpus } from '@s2sp/test-utils';
import { readingsAnswers } from '../../packages/proxy/test/real-servers/readings.js';
import { nwsAlertFixtures } from './data.js';

const FIXTURES = new URL('../../packages/proxy/test/fixtures/real-servers/', import.meta.url);

/** One measured text: its name, its family (for the error by family) and its fit group. */
export interface EstimatorShape {
  readonly name: string;
  /** `corpus`, `NWS`, `held-out` (synthetic, kept out of every fit) or `real-server`. */
  readonly family: 'corpus' | 'NWS' | 'held-out' | 'real-server';
  readonly text: string;
}

/** The real-server matrix's answers, rebuilt, and every answer it recorded (2–3 rows each). */
function realServerShapes(): EstimatorShape[] {
  const recorded = readdirSync(fileURLToPath(FIXTURES))
    .filter((file) => file.endsWith('.json') && file !== 'tool-lists.json')
    .map((file) => {
      const result = JSON.parse(readFileSync(fileURLToPath(new URL(file, FIXTURES)), 'utf8')) as {
        content: { type: string; text?: string }[];
      };
      const text = result.content.map((block) => block.text ?? '').join('\n');
      return { name: `recorded ${file.replace(/\.json$/, '')}`, text };
    });
  return [
    ...readingsAnswers().map(({ name, text }) => ({ name: `readings, ${name}`, text })),
    ...recorded,
  ].map(({ name, text }) => ({ name, family: 'real-server' as const, text }));
}

/** Every measured text, corpus first. */
export function estimatorShapes(): EstimatorShape[] {
  const forecast = JSON.parse(
    readFileSync(
      fileURLToPath(
        new URL(
          '../../apps/weather-alerts/fixtures/forecast-EWX-156_91-2026-09-13.json',
          import.meta.url,
        ),
      ),
      'utf8',
    ),
  ) as { properties: { periods: unknown[] } };
  return [
    ...tokenCorpus().map(({ name, text }) => ({ name, family: 'corpus' as const, text })),
    ...nwsAlertFixtures().flatMap(({ name, rows }) => {
      const short = `NWS ${name.replace(/^alerts-active-|\.json$/g, '')}`;
      return [
        { name: short, family: 'NWS' as const, text: JSON.stringify(rows) },
        { name: `${short}, 2 spaces`, family: 'NWS' as const, text: JSON.stringify(rows, null, 2) },
      ];
    }),
    {
      name: 'NWS forecast periods, 2 spaces',
      family: 'NWS',
      text: JSON.stringify(forecast.properties.periods, null, 2),
    },
    ...heldOutShapes().map(({ name, text }) => ({ name, family: 'held-out' as const, text })),
    ...realServerShapes(),
  ];
}
