/**
 * Tables the token estimator was not fitted on, for `token-estimate.test.ts`: generated here, from
 * a seed, in the shapes an upstream answers in and a receipt counts (issue 54, row 8: a table of
 * repetitive English notes, indented, was counted 13% high). None of their sentences, words or
 * layouts is in `tokenCorpus` or was looked at while choosing the estimator's constants.
 *
 * @module
 */

import { seededRandom } from './seeded-random.js';

/** One held-out text and its name. */
export interface HeldOutShape {
  readonly name: string;
  readonly text: string;
}

// Support-desk and field-service notes: a few sentences of everyday English, repeated row after
// row, as a ticketing or CRM export has them.
const NOTES = [
  'Spoke with the owner about the leaking pipe under the kitchen sink.',
  'Technician arrived on time and finished the repair before lunch.',
  'Customer asked whether the warranty covers the replacement parts.',
  'Rescheduled the visit because nobody was home this afternoon.',
  'Ordered a new thermostat; installation planned for Thursday morning.',
  'Everything working normally after the update, closing the ticket.',
  'Sent a reminder about the outstanding balance on the previous invoice.',
];
// Account-management notes: the same formal English, longer words (most of them one o200k token
// each after a space), the kind the field's table of issue 54 had.
const FORMAL = [
  'Representative confirmed availability and discussed the implementation timeline with procurement.',
  'Customer requested additional information regarding the quarterly maintenance agreement.',
  "Following yesterday's conversation, management approved the revised proposal.",
  'Documentation delivered; awaiting signature from the operations director.',
  'Previously reported connectivity problems resolved after the scheduled upgrade.',
];
const AGENTS = ['Maria Lopez', 'Tom Becker', 'Anika Shah', 'Joe Park'];
const SPANISH = [
  'El técnico revisó la caldera y cambió el filtro del agua.',
  'La clienta pidió una factura nueva con la dirección corregida.',
  'Quedamos en volver el lunes para terminar la instalación.',
];
const FRENCH = [
  'Le technicien a remplacé le joint et vérifié la pression.',
  'Le client souhaite être rappelé demain après-midi.',
  'Nous attendons la pièce de rechange depuis la semaine dernière.',
];
const CODE = [
  'export function total(items) {\n  return items.reduce((sum, item) => sum + item.price * item.qty, 0);\n}',
  'if (!response.ok) {\n  throw new Error("Request failed: " + response.status);\n}',
  'const rows = await db.query("SELECT id, name FROM users WHERE active = $1", [true]);',
  'for (let i = 0; i < list.length; i++) {\n\tif (list[i] === target) return i;\n}\nreturn -1;',
];

/**
 * The held-out shapes: repetitive notes as compact JSON, indented by 2 and 4 spaces and by
 * tabs and as prose alone, nested objects of several depths, CSV inside a JSON string, a table of
 * numbers, ids and UUIDs, URLs, notes in Spanish and French, and source code in JSON strings.
 *
 * @param seed - the generator's seed
 */
export function heldOutShapes(seed = 54): HeldOutShape[] {
  const random = seededRandom(seed);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)] as T;
  const notesRows = notesTable('everyday', random);
  const formalRows = notesTable('formal', random);
  const nested = (depth: number) =>
    Array.from({ length: 120 }, (_, i) => {
      let value: Record<string, unknown> = {
        label: pick(['north', 'south', 'east', 'west']),
        enabled: random() < 0.5,
        score: int(0, 1000) / 10,
        tags: [pick(['red', 'green', 'blue']), pick(['small', 'large'])],
      };
      for (let d = 1; d < depth; d++) value = { level: d, child: value, note: pick(NOTES) };
      return { id: i + 1, item: value };
    });
  const csvRows = Array.from(
    { length: 400 },
    (_, i) =>
      `${i + 1},${pick(['Denver', 'Portland', 'Atlanta'])},${pick(['CO', 'OR', 'GA'])},${int(1000, 99999)},${int(0, 100) / 4}`,
  );
  const numbers = Array.from({ length: 400 }, (_, i) => ({
    n: i,
    price: int(1, 99999) / 100,
    qty: int(1, 500),
    ratio: Number(random().toFixed(5)),
    delta: -int(0, 5000),
    big: int(1e9, 9e12),
  }));
  const foreign = Array.from({ length: 150 }, (_, i) => ({
    id: i + 1,
    nota: Array.from({ length: int(1, 3) }, () => pick(random() < 0.5 ? SPANISH : FRENCH)).join(
      ' ',
    ),
  }));
  const code = Array.from({ length: 120 }, (_, i) => ({
    file: `src/module-${i % 9}.ts`,
    line: int(1, 400),
    snippet: pick(CODE),
  }));
  const hex = (digits: number) =>
    Array.from({ length: digits }, () => '0123456789abcdef'[int(0, 15)]).join('');
  const ids = Array.from({ length: 300 }, (_, i) => ({
    id: `${hex(8)}-${hex(4)}-4${hex(3)}-${hex(4)}-${hex(12)}`,
    order: `ORD-${int(100000, 999999)}`,
    sku: `${pick(['AB', 'KX', 'QP', 'ZT'])}${int(10, 99)}-${hex(6).toUpperCase()}`,
    parent: i > 0 && random() < 0.5 ? int(1, i) : null,
  }));
  const urls = Array.from({ length: 250 }, (_, i) => ({
    n: i + 1,
    url: `https://${pick(['api', 'www', 'cdn', 'docs'])}.${pick(['example', 'acme-corp', 'northwind'])}.${pick(['com', 'io', 'org'])}/${pick(['v1', 'v2', 'static', 'en-us'])}/${pick(['users', 'orders', 'assets/img', 'guides/getting-started'])}/${int(1, 99999)}?ref=${hex(6)}&page=${int(1, 40)}`,
    status: pick([200, 301, 404]),
  }));
  return [
    { name: 'notes, compact', text: JSON.stringify(notesRows) },
    { name: 'notes, 2 spaces', text: JSON.stringify(notesRows, null, 2) },
    { name: 'notes, 4 spaces', text: JSON.stringify(notesRows, null, 4) },
    { name: 'notes, tabs', text: JSON.stringify(notesRows, null, '\t') },
    { name: 'notes alone', text: notesRows.map((row) => row.notes).join('\n') },
    { name: 'formal notes, 2 spaces', text: JSON.stringify(formalRows, null, 2) },
    { name: 'formal notes, tabs', text: JSON.stringify(formalRows, null, '\t') },
    { name: 'formal notes alone', text: formalRows.map((row) => row.notes).join('\n') },
    { name: 'nested depth 2, 2 spaces', text: JSON.stringify(nested(2), null, 2) },
    { name: 'nested depth 4, 4 spaces', text: JSON.stringify(nested(4), null, 4) },
    { name: 'nested depth 6, tabs', text: JSON.stringify(nested(6), null, '\t') },
    {
      name: 'CSV inside a JSON string',
      text: JSON.stringify({ csv: `id,city,state,zip,rate\n${csvRows.join('\n')}` }),
    },
    { name: 'numbers', text: JSON.stringify(numbers) },
    { name: 'numbers, 2 spaces', text: JSON.stringify(numbers, null, 2) },
    { name: 'ids and UUIDs', text: JSON.stringify(ids, null, 2) },
    { name: 'URLs', text: JSON.stringify(urls) },
    { name: 'Spanish and French notes', text: JSON.stringify(foreign, null, 2) },
    { name: 'code in JSON strings', text: JSON.stringify(code, null, 2) },
  ];
}

/** A table of repetitive English notes, as {@link notesTable} makes it. */
export type NotesRow = { id: number; opened: string; agent: string; status: string; notes: string };

/**
 * 250 rows of repetitive English notes: an id, a date, an agent, a status and two to five of a
 * handful of sentences.
 *
 * @param kind - everyday sentences, or formal ones of longer words
 * @param random - the generator to draw from
 */
export function notesTable(
  kind: 'everyday' | 'formal',
  random: () => number = seededRandom(540),
): NotesRow[] {
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)] as T;
  const lines = kind === 'formal' ? FORMAL : NOTES;
  return Array.from({ length: 250 }, (_, i) => ({
    id: 5000 + i,
    opened: `2026-0${int(1, 9)}-${String(int(1, 28)).padStart(2, '0')}`,
    agent: pick(AGENTS),
    status: pick(['open', 'closed', 'waiting']),
    notes: Array.from({ length: int(2, 5) }, () => pick(lines)).join(' '),
  }));
}
