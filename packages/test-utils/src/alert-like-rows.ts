/**
 * Generated rows shaped like NWS alerts (strings, numbers, booleans, nested objects; ~1.2 KB of
 * compact JSON each): the table the benchmarks and the size-dependent tests use.
 *
 * @module
 */
import { seededRandom } from './seeded-random.js';

const WORDS = [
  'wind',
  'heat',
  'flood',
  'advisory',
  'warning',
  'county',
  'coastal',
  'gusts',
  'rain',
  'river',
  'storm',
  'valley',
  'north',
  'south',
  'expected',
  'moderate',
];
const EVENTS = [
  'Wind Advisory',
  'Heat Advisory',
  'Flood Warning',
  'Special Weather Statement',
  'Red Flag Warning',
];

/**
 * `count` rows of about 1 KB each (as compact JSON), mixing strings, numbers, booleans and nested
 * objects, like an NWS alert. Deterministic for a seed.
 */
export function generateRows(count: number, seed = 42): Record<string, unknown>[] {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const text = (words: number) => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    id: `urn:oid:2.49.0.1.840.0.${(i * 7919).toString(16)}`,
    event: pick(EVENTS),
    severity: pick(['Minor', 'Moderate', 'Severe', 'Extreme']),
    urgency: pick(['Immediate', 'Expected', 'Future']),
    onset: new Date(Date.UTC(2026, 8, 13, i % 24)).toISOString(),
    magnitude: Math.round(random() * 10_000) / 100,
    active: random() > 0.3,
    geocode: {
      SAME: [`0${48000 + (i % 250)}`],
      UGC: [`TXZ${100 + (i % 300)}`, `TXC${(i % 500).toString().padStart(3, '0')}`],
    },
    parameters: {
      VTEC: [`/O.NEW.KEWX.HT.Y.${1000 + (i % 9000)}/`],
      windGust: [Math.round(random() * 60)],
    },
    headline: text(14),
    description: text(88),
    instruction: text(20),
  }));
}
