/**
 * The table the database servers of the real-server matrix answer with: 150 rows × 11 columns
 *, made here once and loaded as the same values into PostgreSQL and MariaDB. Each
 * type a server might print its own way is there — numerics, booleans, timestamps, JSON, NULLs —
 * and two long text columns (`summary`, `notes`: about 0.5 and 0.8 KB, with commas, double
 * quotes, an apostrophe, non-ASCII letters and, in `notes`, a line break), so that the whole
 * table is about 60,000 o200k tokens and a server that caps its answer by size does cut it.
 */

/** Rows in the table. */
export const READINGS_ROWS = 150;

/** The table's name in both databases. */
export const READINGS_TABLE = 'readings';

/** One row as the test writes it (the servers print some types their own way). */
export interface ReadingRow {
  readonly id: number;
  readonly station: string;
  readonly state: string;
  readonly level: string;
  readonly ok: boolean;
  readonly taken: string;
  readonly samples: number;
  readonly elevation: number;
  readonly tags: { readonly kind: string; readonly n: number } | null;
  readonly summary: string;
  readonly notes: string | null;
}

const PLACES = ['Ådalen', 'Zürich Nord', "O'Hare", 'São Paulo', 'Kraków', 'Austin'];
const STATES = ['TX', 'OK', 'KS', 'NE', 'SD', 'ND'];
const WORDS = [
  'gusty',
  'variable',
  'clearing',
  'overcast',
  'drizzle',
  'squall line',
  'dew point',
  'inversion',
  'backing winds',
  'hail, small',
];

function phrase(seed: number, words: number): string {
  return Array.from({ length: words }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length]).join(
    ' ',
  );
}

function makeRow(i: number): ReadingRow {
  const id = i + 1;
  const place = PLACES[i % PLACES.length] as string;
  const summary = `Reading ${id} at ${place}: ${phrase(id, 36)}; the "official" note says ${phrase(id + 1, 24)}.`;
  const notes =
    id % 10 === 0
      ? null
      : `Observer's log ${id}, ${phrase(id + 2, 50)}.\nSecond line: ${phrase(id + 3, 40)} (°C, “quoted”).`;
  return {
    id,
    station: `Station ${String(id).padStart(3, '0')} ${place}`,
    state: STATES[i % STATES.length] as string,
    level: (((id * 37) % 1000) + (id % 4) * 0.25).toFixed(2),
    ok: id % 3 !== 0,
    taken: new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + id * 3_600_000).toISOString(),
    samples: id * 11,
    elevation: Math.round(id * 12.345 * 1000) / 1000,
    tags: id % 7 === 0 ? null : { kind: WORDS[id % WORDS.length] as string, n: id % 5 },
    summary,
    notes,
  };
}

/** The rows, in `id` order. */
export const READINGS: readonly ReadingRow[] = Array.from({ length: READINGS_ROWS }, (_, i) =>
  makeRow(i),
);

/** A SQL string literal: `'` doubled; backslashes doubled too, which MariaDB reads as escapes. */
const literal = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * The statements that create and fill the table.
 *
 * @param dialect - `postgres` (`numeric`, `timestamptz`, `jsonb`) or `mariadb` (`DECIMAL`,
 *   `DATETIME` in UTC, `JSON`, utf8mb4: MariaDB 10's default character set is latin1)
 */
export function readingsSql(dialect: 'postgres' | 'mariadb'): string {
  const pg = dialect === 'postgres';
  const create = `CREATE TABLE ${READINGS_TABLE} (
    id INT PRIMARY KEY, station VARCHAR(64) NOT NULL, state CHAR(2) NOT NULL,
    level ${pg ? 'NUMERIC(8,2)' : 'DECIMAL(8,2)'}, ok BOOLEAN, taken ${pg ? 'TIMESTAMPTZ' : 'DATETIME'},
    samples INT, elevation DOUBLE PRECISION, tags ${pg ? 'JSONB' : 'JSON'}, summary TEXT NOT NULL,
    notes TEXT)${pg ? '' : ' DEFAULT CHARSET=utf8mb4'}`;
  const values = READINGS.map((row) =>
    [
      row.id,
      literal(row.station),
      literal(row.state),
      row.level,
      pg ? String(row.ok) : row.ok ? '1' : '0',
      literal(pg ? row.taken : row.taken.slice(0, 19).replace('T', ' ')),
      row.samples,
      row.elevation,
      row.tags === null ? 'NULL' : literal(JSON.stringify(row.tags)),
      literal(row.summary),
      row.notes === null ? 'NULL' : literal(row.notes),
    ].join(', '),
  );
  return `${create};\nINSERT INTO ${READINGS_TABLE} VALUES\n(${values.join('),\n(')});`;
}

/**
 * The parts of a matrix spec every database server shares: the call reading the whole table (in
 * `id` order), the small call recorded as the fixture (its first two rows), the abstract's
 * columns and the rows expected.
 *
 * @param query - the tool's arguments for a SQL text (`(sql) => ({ sql })`)
 */
export function readingsCall(query: (sql: string) => Record<string, unknown>) {
  return {
    args: query(`SELECT * FROM ${READINGS_TABLE} ORDER BY id`),
    fixtureArgs: query(`SELECT * FROM ${READINGS_TABLE} ORDER BY id LIMIT 2`),
    abstract: ['station', 'state'],
    expectedRows: READINGS_ROWS,
  };
}
