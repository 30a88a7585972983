import { DuckDBInstance } from '@duckdb/node-api';
import { S2SPError } from '@s2sp/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openSandbox, type SandboxLimits, type SqlSandbox, sandboxConfig } from './sql-sandbox.js';

const LIMITS: SandboxLimits = {
  maxRows: 1000,
  maxColumns: 50,
  memoryLimitMb: 64,
  threads: 1,
  timeoutMs: 5000,
  maxSqlChars: 2000,
};

const ALERTS = [
  {
    _row_id: 0,
    event: 'Heat Advisory',
    severity: 'Moderate',
    onset: '2026-09-13T10:00:00-05:00',
    n: 3,
    urgent: true,
  },
  {
    _row_id: 1,
    event: 'Flood Watch',
    severity: 'Severe',
    onset: '2026-09-13T12:30:00-05:00',
    n: 1,
    urgent: false,
  },
  {
    _row_id: 2,
    event: 'Heat Advisory',
    severity: 'Moderate',
    onset: '2026-09-14T09:00:00-05:00',
    n: 2,
    urgent: null,
  },
];

let open: SqlSandbox[] = [];
async function sandbox(limits: Partial<SandboxLimits> = {}): Promise<SqlSandbox> {
  const box = await openSandbox({ ...LIMITS, ...limits });
  open.push(box);
  await box.load('alerts', ALERTS);
  return box;
}
afterEach(() => {
  for (const box of open) box.close();
  open = [];
});

async function codeOf(run: Promise<unknown>): Promise<string | undefined> {
  try {
    await run;
  } catch (error) {
    return S2SPError.isInstance(error) ? error.code : `not an S2SPError: ${String(error)}`;
  }
  return undefined;
}

describe('openSandbox', () => {
  it('loads typed columns and runs a SELECT, keeping the first rows and counting all', async () => {
    const box = await openSandbox(LIMITS);
    open.push(box);
    const table = await box.load('alerts', ALERTS);
    expect(table.columns.map((c) => `${c.name} ${c.type}`)).toEqual([
      '_row_id BIGINT',
      'event VARCHAR',
      'severity VARCHAR',
      'onset TIMESTAMPTZ',
      'n BIGINT',
      'urgent BOOLEAN',
    ]);
    const out = await box.query(
      "SELECT severity, count(*) AS alerts, sum(n) AS n, min(onset) AS first FROM alerts WHERE onset < TIMESTAMPTZ '2026-09-14T00:00:00Z' GROUP BY severity ORDER BY severity",
      { rows: 10 },
    );
    expect(out.columns).toEqual([
      { name: 'severity', type: 'VARCHAR' },
      { name: 'alerts', type: 'BIGINT' },
      { name: 'n', type: 'HUGEINT' },
      { name: 'first', type: 'TIMESTAMP WITH TIME ZONE' },
    ]);
    expect(out.rows).toEqual([
      { severity: 'Moderate', alerts: 1, n: 3, first: '2026-09-13T15:00:00.000Z' },
      { severity: 'Severe', alerts: 1, n: 1, first: '2026-09-13T17:30:00.000Z' },
    ]);
    expect(out.totalRows).toBe(2);
    const cut = await box.query('SELECT * FROM range(2500)', { rows: 3 });
    expect(cut.rows).toEqual([{ range: 0 }, { range: 1 }, { range: 2 }]);
    expect(cut.totalRows).toBe(2500);
  });

  it('binds values: a quote or SQL in a cell or a column name stays data', async () => {
    const box = await openSandbox(LIMITS);
    open.push(box);
    await box.load('t', [
      { _row_id: 0, 'we"ird; DROP TABLE t; --': "'); DROP TABLE t; --", __proto__x: 1 },
    ]);
    const out = await box.query('SELECT * FROM t', { rows: 5 });
    expect(out.rows).toEqual([
      { _row_id: 0, 'we"ird; DROP TABLE t; --': "'); DROP TABLE t; --", __proto__x: 1 },
    ]);
  });

  it('refuses tables over the row and column caps', async () => {
    const box = await openSandbox({ ...LIMITS, maxRows: 2, maxColumns: 3 });
    open.push(box);
    expect(await codeOf(box.load('big', ALERTS))).toBe('payload_too_large');
    expect(await codeOf(box.load('wide', [ALERTS[0] as Record<string, unknown>]))).toBe(
      'payload_too_large',
    );
  });

  it('answers DuckDB errors as invalid_request with the message labelled', async () => {
    const box = await sandbox();
    let error: unknown;
    try {
      await box.query('SELECT nope FROM alerts', { rows: 5 });
    } catch (caught) {
      error = caught;
    }
    expect(S2SPError.isInstance(error) && error.code).toBe('invalid_request');
    expect((error as Error).message).toMatch(/DuckDB said: «.*nope.*»/s);
    expect(await codeOf(box.query('SELEC 1', { rows: 5 }))).toBe('invalid_request');
  });

  it('stops a query that runs past the timeout, and the connection works afterwards', async () => {
    const box = await sandbox({ timeoutMs: 150 });
    expect(
      await codeOf(
        box.query('SELECT count(*) FROM range(1000000000000) t(a) WHERE a % 7 = 3', { rows: 5 }),
      ),
    ).toBe('timeout');
    expect((await box.query('SELECT 1 AS one', { rows: 5 })).rows).toEqual([{ one: 1 }]);
  });

  it('answers timeout, not a cut answer, when the time runs out while rows stream', async () => {
    // Before: the interrupted stream ended like a finished one, and the rows counted so far came
    // back as a success with total_rows of some millions.
    const box = await sandbox({ timeoutMs: 300 });
    expect(await codeOf(box.query('SELECT * FROM range(3000000000)', { rows: 5 }))).toBe('timeout');
    const counted = await box.query('SELECT * FROM range(3000)', { rows: 5 });
    expect([counted.rows.length, counted.totalRows]).toEqual([5, 3000]);
  });

  it('keeps no more rows than fit the character cap, and counts the rest', async () => {
    const box = await sandbox();
    const out = await box.query("SELECT repeat('x', 100) AS s FROM range(50)", {
      rows: 50,
      chars: 1000,
    });
    expect([out.rows.length, out.totalRows, out.overChars]).toEqual([9, 50, true]);
    const all = await box.query("SELECT repeat('x', 100) AS s FROM range(5)", {
      rows: 50,
      chars: 1000,
    });
    expect([all.rows.length, all.overChars]).toEqual([5, false]);
  });
});

describe('the lock-down', () => {
  const refused: [string, string][] = [
    ['INSTALL', 'INSTALL httpfs'],
    ['LOAD', 'LOAD httpfs'],
    ['ATTACH', "ATTACH '/tmp/other.duckdb' AS other"],
    ['DETACH', 'DETACH other'],
    ['COPY', "COPY alerts TO '/tmp/alerts.csv'"],
    ['COPY FROM', "COPY alerts FROM '/etc/passwd'"],
    ['EXPORT', "EXPORT DATABASE '/tmp/db'"],
    ['PRAGMA', 'PRAGMA version'],
    ['PRAGMA call', 'CALL pragma_version()'],
    ['SET', 'SET threads = 8'],
    ['RESET', 'RESET threads'],
    ['CREATE', 'CREATE TABLE x AS SELECT 1'],
    ['INSERT', 'INSERT INTO alerts (_row_id) VALUES (9)'],
    ['DELETE', 'DELETE FROM alerts'],
    ['DROP', 'DROP TABLE alerts'],
    ['EXPLAIN', 'EXPLAIN SELECT 1'],
    ['read_csv', "SELECT * FROM read_csv('/etc/passwd')"],
    ['read_text', "SELECT * FROM read_text('/etc/hostname')"],
    ['read_csv in a subquery', "SELECT (SELECT count(*) FROM read_csv_auto('/etc/passwd')) AS n"],
    ['glob', "SELECT * FROM glob('/*')"],
    ['a file as a table', "SELECT * FROM '/etc/passwd'"],
    ['a CSV as a table', "SELECT * FROM 'alerts.csv'"],
    ['another catalog', 'SELECT * FROM system.main.duckdb_settings()'],
    ['settings', 'SELECT * FROM duckdb_settings()'],
    ['query()', "SELECT * FROM query('SELECT 42')"],
    ['getenv', "SELECT getenv('HOME')"],
    // Catalog views DuckDB finds without a schema, and the settings reader: they told the
    // working and home directories (159 settings) before tables became an allow-list.
    ['pg_settings', 'SELECT name, setting FROM pg_settings'],
    ['pg_proc', 'SELECT * FROM pg_proc'],
    ['pg_class', 'SELECT * FROM pg_class'],
    ['pg_namespace', 'SELECT * FROM pg_namespace'],
    ['pg_type', 'SELECT * FROM pg_type'],
    ['pg_tables', 'SELECT * FROM pg_tables'],
    ['pg_views', 'SELECT * FROM pg_views'],
    ['pg_attribute', 'SELECT * FROM pg_attribute'],
    ['pg_database', 'SELECT * FROM pg_database'],
    ['pg_indexes', 'SELECT * FROM pg_indexes'],
    ['sqlite_master', 'SELECT * FROM sqlite_master'],
    ['duckdb_tables (a view)', 'SELECT * FROM duckdb_tables'],
    ['main.sqlite_master', 'SELECT * FROM main.sqlite_master'],
    ['information_schema', 'SELECT * FROM information_schema.tables'],
    ['current_setting', "SELECT current_setting('secret_directory')"],
    [
      'current_setting in a filter',
      "SELECT count(*) FROM alerts WHERE current_setting('home_directory') <> ''",
    ],
    ['a pg_catalog macro', "SELECT pg_get_viewdef('pg_settings')"],
    ['a qualified pg_catalog macro', 'SELECT pg_catalog.pg_typeof(1)'],
    [
      'a CTE that reads the view it shadows',
      'WITH pg_settings AS (SELECT * FROM pg_settings) SELECT * FROM pg_settings',
    ],
    [
      'a CTE used before it is defined',
      'WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a',
    ],
    [
      'a CTE name outside its scope',
      'SELECT * FROM (WITH pg_settings AS (SELECT 1) SELECT 1), pg_settings',
    ],
    // A recursive CTE's anchor is bound before the CTE exists: there its name is the catalog's
    // view. Before, these answered the 159 settings (working and home directory among them).
    [
      'a recursive CTE whose anchor reads the view it shadows',
      'WITH RECURSIVE pg_settings AS (SELECT name, setting FROM pg_settings UNION ALL SELECT name, setting FROM pg_settings WHERE false) SELECT * FROM pg_settings',
    ],
    [
      'a recursive CTE (UNION) whose anchor reads the view it shadows',
      'WITH RECURSIVE pg_settings AS (SELECT name, setting FROM pg_settings UNION SELECT name, setting FROM pg_settings) SELECT * FROM pg_settings',
    ],
    [
      "a recursive CTE whose anchor's own union reads the view it shadows",
      'WITH RECURSIVE pg_settings AS (SELECT 1 AS n UNION ALL SELECT 2 FROM pg_settings UNION ALL SELECT n + 1 FROM pg_settings WHERE n < 3) SELECT * FROM pg_settings',
    ],
    [
      'a recursive CTE over a nested WITH whose anchor reads the view',
      'SELECT * FROM (WITH RECURSIVE duckdb_tables AS (SELECT * FROM duckdb_tables UNION ALL SELECT * FROM duckdb_tables WHERE false) SELECT * FROM duckdb_tables)',
    ],
    // A qualified name is never a CTE's: this read the catalog's sqlite_master.
    [
      'a qualified catalog view that a CTE shadows',
      'WITH sqlite_master AS (SELECT 1 AS x) SELECT * FROM main.sqlite_master',
    ],
    // A macro of the main schema whose definition reads a pragma (pragma_database_size).
    ['a macro that reads a pragma', "SELECT get_block_size('memory') AS b"],
    [
      'a macro that reads a pragma, in a filter',
      "SELECT count(*) FROM alerts WHERE get_block_size('memory') > 0",
    ],
    ['SHOW TABLES', 'SHOW TABLES'],
    ['SHOW ALL TABLES', 'SHOW ALL TABLES'],
    ['a URL', "SELECT * FROM 'https://example.com/data.parquet'"],
  ];
  for (const [what, sql] of refused) {
    it(`refuses ${what}`, async () => {
      const box = await sandbox();
      expect(await codeOf(box.query(sql, { rows: 5 }))).toBe('forbidden');
    });
  }

  it('refuses more than one statement, and an empty or over-long text', async () => {
    const box = await sandbox();
    expect(await codeOf(box.query('SELECT 1; SELECT 2', { rows: 5 }))).toBe('invalid_request');
    expect(await codeOf(box.query('SELECT 1; INSTALL httpfs', { rows: 5 }))).toBe(
      'invalid_request',
    );
    expect(await codeOf(box.query('  ', { rows: 5 }))).toBe('invalid_request');
    expect(await codeOf(box.query(42, { rows: 5 }))).toBe('invalid_request');
    expect(await codeOf(box.query(`SELECT ${'1+'.repeat(1500)}1`, { rows: 5 }))).toBe(
      'payload_too_large',
    );
    expect((await box.query('SELECT 1 AS x;', { rows: 5 })).rows).toEqual([{ x: 1 }]);
  });

  it('allows CTEs, generators, unnest and DESCRIBE', async () => {
    const box = await sandbox();
    const out = await box.query(
      'WITH s AS (SELECT severity FROM alerts) SELECT count(*) AS n FROM s, range(2), unnest([1, 2])',
      { rows: 5 },
    );
    expect(out.rows).toEqual([{ n: 12 }]);
    expect((await box.query('DESCRIBE alerts', { rows: 10 })).totalRows).toBe(6);
  });

  it('allows CTEs that shadow a catalog name, recursive CTEs and the built-in functions', async () => {
    const box = await sandbox();
    const rows = async (sql: string) => (await box.query(sql, { rows: 10 })).rows;
    expect(
      await rows('WITH pg_settings AS (SELECT 1 AS x) SELECT count(*) AS n FROM pg_settings'),
    ).toEqual([{ n: 1 }]);
    expect(
      await rows(
        'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT sum(n) AS s FROM t',
      ),
    ).toEqual([{ s: 6 }]);
    expect(
      await rows(
        "SELECT upper(severity) AS s, list_sort([3, 1])[1] AS m, severity LIKE 'M%' AS l, date_part('year', onset) AS y FROM ALERTS ORDER BY 1 LIMIT 1",
      ),
    ).toEqual([{ s: 'MODERATE', m: 1, l: true, y: 2026 }]);
    expect(await rows('SELECT count(*) AS n FROM main.alerts')).toEqual([{ n: 3 }]);
  });

  it('allows recursive CTEs over the loaded tables and over themselves, whatever their name', async () => {
    const box = await sandbox();
    const rows = async (sql: string) => (await box.query(sql, { rows: 10 })).rows;
    // The anchor reads the loaded table, the recursive part the CTE (also in a subquery).
    expect(
      await rows(
        'WITH RECURSIVE walk(id, severity) AS (SELECT _row_id, severity FROM alerts WHERE _row_id = 0 UNION ALL SELECT a._row_id, a.severity FROM (SELECT * FROM walk) w JOIN alerts a ON a._row_id = w.id + 1) SELECT id, severity FROM walk ORDER BY id',
      ),
    ).toEqual([
      { id: 0, severity: 'Moderate' },
      { id: 1, severity: 'Severe' },
      { id: 2, severity: 'Moderate' },
    ]);
    // A recursive CTE named after a catalog view reads only itself past its anchor.
    expect(
      await rows(
        'WITH RECURSIVE pg_settings AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM pg_settings WHERE n < 3) SELECT sum(n) AS s FROM pg_settings',
      ),
    ).toEqual([{ s: 6 }]);
    // A CTE named after a loaded table: its anchor reads the table.
    expect(
      await rows(
        'WITH RECURSIVE alerts AS (SELECT _row_id AS n FROM alerts WHERE _row_id = 2 UNION ALL SELECT n + 1 FROM alerts WHERE n < 4) SELECT sum(n) AS s FROM alerts',
      ),
    ).toEqual([{ s: 9 }]);
  });

  it("allows the main schema's macros by what their definitions read, nested ones too", async () => {
    const box = await sandbox();
    expect(
      (
        await box.query(
          "SELECT list_sum([1, 2]) AS s, geometric_mean(4) AS g, split_part('a,b', ',', 2) AS p, current_catalog() AS c",
          { rows: 1 },
        )
      ).rows,
    ).toEqual([{ s: 3, g: 4, p: 'b', c: 'memory' }]);
    // Every scalar macro of this DuckDB, checked by name as a call: only those whose definition
    // reads what a query may not are refused. The list is derived, not written down.
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const names = (
      await connection.runAndReadAll(
        "SELECT DISTINCT function_name AS name FROM duckdb_functions() WHERE database_name = 'system' AND schema_name = 'main' AND function_type = 'macro' ORDER BY 1",
      )
    )
      .getRowObjectsJson()
      .map((row) => String(row.name));
    connection.closeSync();
    instance.closeSync();
    expect(names.length).toBeGreaterThan(50);
    const refused: string[] = [];
    for (const name of names) {
      if (
        (await codeOf(box.check(`SELECT ${name}(1) AS v FROM alerts`, ['alerts']))) === 'forbidden'
      )
        refused.push(name);
    }
    expect(refused).toEqual(['get_block_size']);
  });

  it('configures DuckDB itself without external access, extensions or changeable settings', async () => {
    const instance = await DuckDBInstance.create(':memory:', sandboxConfig(LIMITS));
    const connection = await instance.connect();
    try {
      const settings = (
        await connection.runAndReadAll(
          "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', 'lock_configuration', 'autoinstall_known_extensions', 'autoload_known_extensions', 'threads', 'memory_limit') ORDER BY name",
        )
      ).getRowObjectsJson();
      expect(settings).toEqual([
        { name: 'autoinstall_known_extensions', value: 'false' },
        { name: 'autoload_known_extensions', value: 'false' },
        { name: 'enable_external_access', value: 'false' },
        { name: 'lock_configuration', value: 'true' },
        { name: 'memory_limit', value: '61.0 MiB' },
        { name: 'threads', value: '1' },
      ]);
      // Behind the parser check, the engine refuses on its own.
      await expect(connection.run('SET enable_external_access = true')).rejects.toThrow(/locked/);
      await expect(connection.run("SELECT * FROM read_csv('/etc/passwd')")).rejects.toThrow(
        /disabled by configuration/,
      );
      await expect(connection.run('INSTALL httpfs')).rejects.toThrow();
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
