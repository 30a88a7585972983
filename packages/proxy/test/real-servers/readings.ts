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

/** A CSV cell as the matrix's servers write one: quoted only when it holds `,`, `"` or a break. */
const csvCell = (value: unknown) => {
  const text = value === null ? '' : typeof value === 'object' ? '[object Object]' : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/**
 * The database servers' answers to `SELECT * FROM readings`, rebuilt from {@link READINGS} in the
 * layout each one prints (as recorded in `test/fixtures/real-servers/`; the indented JSON array is
 * the live answer to the character): what the savings receipt counts through the proxy, for
 * measuring the token estimate against o200k without the servers (the benchmark, and
 * `receipt-estimate.test.ts`).
 */
export function readingsAnswers(): { readonly name: string; readonly text: string }[] {
  const rows = READINGS.map((row) => ({ ...row }));
  const mariadb = READINGS.map((row) => ({ ...row, ok: row.ok ? 1 : 0 }));
  const columns = Object.keys(READINGS[0] ?? {});
  const csv = `${[columns.join(','), ...mariadb.map((row) => Object.values(row).map(csvCell).join(','))].join('\n')}\n`;
  const dbhub = {
    success: true,
    data: {
      statements: [
        {
          sql: `SELECT * FROM ${READINGS_TABLE} ORDER BY id`,
          rows: rows.map((row) => ({
            ...row,
            taken: `${row.taken.slice(0, 19).replace('T', ' ')}+00`,
          })),
          count: READINGS_ROWS,
        },
      ],
      source_id: 'default',
    },
  };
  return [
    {
      name: 'indented JSON array (server-postgres, zed, sqlite)',
      text: JSON.stringify(rows, null, 2),
    },
    {
      name: 'compact JSON in {rows} (mcp-postgres-server)',
      text: JSON.stringify({ rows, rowCount: READINGS_ROWS }),
    },
    {
      name: 'a prose line, then indented JSON (henkey)',
      text: `Query executed successfully. Retrieved ${READINGS_ROWS} rows.\n\nResults:\n${JSON.stringify(rows, null, 2)}`,
    },
    { name: 'nested indented JSON (dbhub)', text: JSON.stringify(dbhub, null, 2) },
    {
      name: 'indented JSON array, booleans as 0/1 (MySQL servers)',
      text: JSON.stringify(mariadb, null, 2),
    },
    {
      name: 'CSV in a JSON string (berthojoris export_query_to_csv)',
      text: JSON.stringify({ csv, row_count: READINGS_ROWS }, null, 2),
    },
    { name: 'CSV (database-server export_query)', text: csv },
  ];
}
