import { connectMcpClient, type TestMcpClient, type ToolResult, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { type SqlPipeline, startSqlPipeline, texasSeverityCounts } from './support.js';

type Abstract = {
  total_rows: number;
  abstract: { _row_id: number; [column: string]: unknown }[];
  abstract_domains: string[];
  body_domains: string[];
  resource_url: string;
};

type Answer = {
  columns: string;
  rows: Record<string, unknown>[];
  total_rows: number;
  truncated?: true;
  tables: Record<string, string>;
};

function codeOf(result: ToolResult): unknown {
  return (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'];
}

async function alertsUrl(pipeline: SqlPipeline, columns = 'severity'): Promise<Abstract> {
  await using weather = await connectMcpClient(pipeline.weather.mcpUrl);
  const result = await weather.call('get_alerts', { area: 'TX', abstract_domains: columns });
  expect(result.isError).toBeFalsy();
  return result.structuredContent as Abstract;
}

async function query(sql: TestMcpClient, args: Record<string, unknown>): Promise<ToolResult> {
  return sql.call('query_tables', args);
}

describe('query_tables', () => {
  it('chains get_alerts → query_tables(GROUP BY, as_table) → draw_chart; the counts match the fixture', async () => {
    await using pipeline = await startSqlPipeline();
    const alerts = await alertsUrl(pipeline);
    expect(alerts.total_rows).toBe(19);
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    const result = await query(sql, {
      sql: 'SELECT severity, count(*) AS n FROM alerts GROUP BY severity ORDER BY severity',
      tables: { alerts: alerts.resource_url },
      as_table: true,
      abstract_domains: 'severity,n',
    });
    expect(result.isError).toBeFalsy();
    const grouped = result.structuredContent as Abstract;
    const expected = texasSeverityCounts();
    expect(
      Object.fromEntries(grouped.abstract.map((row) => [row.severity as string, row.n])),
    ).toEqual(expected);
    expect(grouped.total_rows).toBe(Object.keys(expected).length);
    expect(grouped.resource_url.startsWith(`${pipeline.sql.url}/s2sp/data/`)).toBe(true);
    // The model read only the grouped counts: far fewer tokens than one alert's description.
    expect(textOf(result).length).toBeLessThan(400);

    await using charts = await connectMcpClient(pipeline.chart.mcpUrl);
    const drawn = await charts.call('draw_chart', {
      abstract_data: JSON.stringify(grouped.abstract),
      resource_url: grouped.resource_url,
      group_by: 'severity',
      value_column: 'n',
    });
    expect(drawn.isError).toBeFalsy();
    const summary = JSON.parse(textOf(drawn)) as {
      chart_id: string;
      rows_charted: number;
      panels: unknown[];
      value_column: string;
    };
    expect(summary.rows_charted).toBe(Object.keys(expected).length);
    expect(summary.value_column).toBe('n');
    // The bars are the counts, not one bar of height 1 per severity.
    const stored = await pipeline.charts.get(summary.chart_id);
    expect(
      Object.fromEntries((stored?.record.panels[0]?.counts ?? []).map((b) => [b.value, b.count])),
    ).toEqual(expected);
    expect(summary.panels).toEqual([
      {
        column: 'severity',
        distinct: Object.keys(expected).length,
        bars: Object.keys(expected).length,
      },
    ]);
    // Single use: the SQL answer's resource_url was redeemed by draw_chart.
    const again = await charts.call('draw_chart', {
      abstract_data: JSON.stringify(grouped.abstract),
      resource_url: grouped.resource_url,
      group_by: 'severity',
    });
    expect(codeOf(again)).toBe('not_found');
  });

  it('answers rows with their types, the tables it loaded, and truncated with the total when cut', async () => {
    await using pipeline = await startSqlPipeline();
    const alerts = await alertsUrl(pipeline, 'event,severity');
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    const result = await query(sql, {
      sql: "SELECT event, onset, expires - onset AS span FROM alerts WHERE onset >= TIMESTAMPTZ '2026-01-01T00:00:00Z' ORDER BY onset, event",
      tables: JSON.stringify({ alerts: { resource_url: alerts.resource_url } }),
      max_rows: 3,
    });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as Answer;
    expect(answer.columns).toBe('event VARCHAR, onset TIMESTAMP WITH TIME ZONE, span INTERVAL');
    expect(answer.rows).toHaveLength(3);
    expect(answer.total_rows).toBe(19);
    expect(answer.truncated).toBe(true);
    expect(typeof answer.rows[0]?.onset).toBe('string');
    expect(Date.parse(answer.rows[0]?.onset as string)).toBeLessThanOrEqual(
      Date.parse(answer.rows[1]?.onset as string),
    );
    expect(answer.tables.alerts).toMatch(/^19 rows: _row_id BIGINT, /);
    expect(answer.tables.alerts).toContain('onset TIMESTAMPTZ');
    expect(answer.tables.alerts).toContain('expires TIMESTAMPTZ');
    expect(answer.tables.alerts).toContain('severity VARCHAR');
    expect(JSON.parse(textOf(result))).toEqual(answer);
  });

  it('loads a selection (row_ids, filter) and joins two tables', async () => {
    await using pipeline = await startSqlPipeline();
    const first = await alertsUrl(pipeline, 'event,severity');
    const second = await alertsUrl(pipeline, 'event,severity');
    const heat = first.abstract
      .filter((row) => row.event === 'Heat Advisory')
      .map((r) => r._row_id);
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    const result = await query(sql, {
      sql: 'SELECT count(*) AS n, count(DISTINCT b.severity) AS severities FROM heat h JOIN severe b ON h._row_id = b._row_id',
      tables: {
        heat: { resource_url: first.resource_url, row_ids: heat },
        severe: { resource_url: second.resource_url, filter: { severity: ['Moderate', 'Severe'] } },
      },
    });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as Answer;
    const moderateOrSevere = new Set(
      first.abstract
        .filter((row) => row.severity === 'Moderate' || row.severity === 'Severe')
        .map((row) => row._row_id),
    );
    expect(answer.rows).toEqual([
      {
        n: heat.filter((id) => moderateOrSevere.has(id)).length,
        severities: expect.any(Number),
      },
    ]);
    expect(answer.tables.heat).toMatch(new RegExp(`^${heat.length} rows:`));
  });

  it('loads inline body_data (sync rows) too', async () => {
    await using pipeline = await startSqlPipeline();
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    const result = await query(sql, {
      sql: 'SELECT sum(x) AS total, bool_and(ok) AS all_ok FROM t',
      tables: {
        t: {
          body_data: [
            { _row_id: 0, x: 2, ok: true },
            { _row_id: 1, x: 3.5, ok: true },
          ],
        },
      },
    });
    expect(result.structuredContent).toMatchObject({ rows: [{ total: 5.5, all_ok: true }] });
  });

  it('returns SQL errors as tool errors with DuckDB’s message labelled and the columns; a refused query costs no resource_url', async () => {
    await using pipeline = await startSqlPipeline();
    const alerts = await alertsUrl(pipeline);
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    // Refused before any fetch: the resource_url stays valid.
    const refused = await query(sql, {
      sql: "SELECT * FROM read_csv('/etc/passwd')",
      tables: { alerts: alerts.resource_url },
    });
    expect(refused.isError).toBe(true);
    expect(codeOf(refused)).toBe('forbidden');
    const twoStatements = await query(sql, {
      sql: 'SELECT 1; SELECT 2',
      tables: { alerts: alerts.resource_url },
    });
    expect(codeOf(twoStatements)).toBe('invalid_request');

    const wrong = await query(sql, {
      sql: 'SELECT sevrity FROM alerts',
      tables: { alerts: alerts.resource_url },
    });
    expect(wrong.isError).toBe(true);
    expect(codeOf(wrong)).toBe('invalid_request');
    expect(textOf(wrong)).toMatch(/DuckDB said: «[^»]*sevrity/);
    expect(textOf(wrong)).toContain('severity VARCHAR');
    // That one did fetch the table: its resource_url is used up.
    const reused = await query(sql, {
      sql: 'SELECT count(*) FROM alerts',
      tables: { alerts: alerts.resource_url },
    });
    expect(codeOf(reused)).toBe('not_found');
  });

  it('refuses bad arguments with stable codes', async () => {
    await using pipeline = await startSqlPipeline({ limits: { maxTables: 2 } });
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    const url = `${pipeline.weather.url}/s2sp/data/${'A'.repeat(43)}`;
    const cases: [Record<string, unknown>, string][] = [
      [{ sql: 'SELECT 1', tables: {} }, 'invalid_request'],
      [{ sql: 'SELECT 1', tables: 'not json' }, 'invalid_request'],
      [{ sql: 'SELECT 1', tables: { 'bad name': url } }, 'invalid_request'],
      [{ sql: 'SELECT 1', tables: { t: { resource_url: url, mode: 'x' } } }, 'invalid_request'],
      [{ sql: 'SELECT 1', tables: { t: {} } }, 'invalid_request'],
      [{ sql: 'SELECT 1', tables: { t: 'ddi://abc' } }, 'invalid_request'],
      [{ sql: 'SELECT 1', tables: { a: url, b: url, c: url } }, 'payload_too_large'],
      [{ sql: 'SELECT 1', tables: { t: url }, as_table: true }, 'invalid_request'],
      [{ sql: 'SELECT 1', tables: { t: url }, abstract_domains: 'x' }, 'invalid_request'],
      // An unknown token: the data plane's 404, passed on as not_found.
      [{ sql: 'SELECT 1', tables: { t: url } }, 'not_found'],
    ];
    for (const [args, code] of cases) {
      const result = await query(sql, args);
      expect({ args, code: codeOf(result) }).toEqual({ args, code });
    }
  });

  it('fetches only from allowed origins, and only public destinations without a list', async () => {
    await using pipeline = await startSqlPipeline();
    const alerts = await alertsUrl(pipeline);
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    // Another loopback origin than the allowed weather-alerts one.
    const elsewhere = alerts.resource_url.replace(pipeline.weather.url, pipeline.chart.url);
    const result = await query(sql, { sql: 'SELECT 1', tables: { t: elsewhere } });
    expect(codeOf(result)).toBe('forbidden');
    // The token was not spent on the refused origin.
    const ok = await query(sql, {
      sql: 'SELECT count(*) AS n FROM t',
      tables: { t: alerts.resource_url },
    });
    expect(ok.structuredContent).toMatchObject({ rows: [{ n: 19 }] });
  });

  it('caps the rows of a loaded table and of an as_table answer', async () => {
    await using pipeline = await startSqlPipeline({ limits: { maxTableRows: 10 } });
    const alerts = await alertsUrl(pipeline);
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    const result = await query(sql, {
      sql: 'SELECT count(*) FROM t',
      tables: { t: alerts.resource_url },
    });
    expect(codeOf(result)).toBe('payload_too_large');
    await using small = await startSqlPipeline({ limits: { maxStoredRows: 5 } });
    const more = await alertsUrl(small);
    await using sql2 = await connectMcpClient(small.sql.mcpUrl);
    const stored = await query(sql2, {
      sql: 'SELECT * FROM range(6)',
      tables: { t: more.resource_url },
      as_table: true,
      abstract_domains: 'range',
    });
    expect(codeOf(stored)).toBe('payload_too_large');
  });

  it('stops a slow query with the timeout code', async () => {
    await using pipeline = await startSqlPipeline({ limits: { timeoutMs: 200 } });
    const alerts = await alertsUrl(pipeline);
    await using sql = await connectMcpClient(pipeline.sql.mcpUrl);
    const result = await query(sql, {
      sql: 'SELECT count(*) FROM t, range(1000000000000) r(a) WHERE a % 7 = 3',
      tables: { t: alerts.resource_url },
    });
    expect(codeOf(result)).toBe('timeout');
  });
});
