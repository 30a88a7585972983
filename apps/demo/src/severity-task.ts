import type { Client } from '@modelcontextprotocol/client';
import { connectAgent, DemoError } from './agent.js';
import type { Pipeline } from './pipeline.js';
import { countTokens } from './tokens.js';

/** The question of the second task. */
export const SEVERITY_QUESTION = 'how many alerts of each severity, and chart the counts';

/** The SQL the scripted model writes for it. */
export const SEVERITY_SQL =
  'SELECT severity, count(*) AS n FROM alerts GROUP BY severity ORDER BY n DESC, severity';

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Tokens the model read and wrote in one way of doing the task. */
export interface TaskTokens {
  readonly tokensRead: number;
  readonly tokensWritten: number;
  /** Tool calls the model made. */
  readonly calls: number;
}

/** The second task's report. */
export interface SeverityReport {
  readonly question: string;
  readonly sql: string;
  /** Alerts per severity, as query_tables answered. */
  readonly counts: Record<string, number>;
  /** Rows draw_chart charted from the SQL answer's resource_url (one per severity). */
  readonly rowsCharted: number;
  /** The bar heights draw_chart drew per severity: the counts, summed from the `n` column. */
  readonly bars: Record<string, number>;
  readonly chartUrl: string;
  /** Plain MCP: every row in, every row out again into draw_chart. */
  readonly plain: TaskTokens;
  /** S2SP without SQL: the model reads every page of a one-column abstract and counts. */
  readonly paging: TaskTokens;
  /** S2SP with query_tables: the model reads and writes the SQL and the grouped counts. */
  readonly sqlTables: TaskTokens;
}

/**
 * One model's conversation: each tool call's arguments are what it writes, each result's text
 * what it reads (tokens counted as the first task counts them, o200k_base).
 */
function createConversation() {
  let read = 0;
  let written = 0;
  let calls = 0;
  return {
    async call(client: Client, name: string, args: Record<string, unknown>) {
      written += countTokens(JSON.stringify(args));
      calls++;
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      const text = result.content.find((block) => block.type === 'text')?.text ?? '';
      if (result.isError) throw new DemoError(`${name} failed: ${text}`);
      read += countTokens(text);
      return {
        text,
        object: (result.structuredContent ?? JSON.parse(text)) as Record<string, unknown>,
      };
    },
    tokens: (): TaskTokens => ({ tokensRead: read, tokensWritten: written, calls }),
  };
}

/**
 * The second task, three ways: plain MCP (the model reads every alert, counts, and writes the
 * rows into draw_chart), S2SP paging (it reads every page of the `severity` abstract, counts, and
 * hands the rows to draw_chart by row_ids), and S2SP with query_tables (it writes the SQL, reads
 * the grouped counts, and hands that answer's resource_url to draw_chart).
 */
export async function runSeverityTask(
  pipeline: Pipeline,
  options: { area: string; say: (line: string) => void },
): Promise<SeverityReport> {
  const { area, say } = options;
  const weather = await connectAgent(pipeline.weather.mcpUrl);
  const sql = await connectAgent(pipeline.sql.mcpUrl);
  const charts = await connectAgent(pipeline.chart.mcpUrl);
  try {
    say(`task 2 ("${SEVERITY_QUESTION}"), plain MCP: every alert in, every alert out…`);
    const plain = createConversation();
    const all = await plain.call(weather, 'get_alerts', { area });
    const rows = JSON.parse(all.text) as Record<string, unknown>[];
    await plain.call(charts, 'draw_chart', {
      abstract_data: JSON.stringify(rows.map((_, i) => ({ _row_id: i }))),
      body_data: JSON.stringify(rows.map((row, i) => ({ _row_id: i, ...row }))),
      group_by: 'severity',
    });

    say('task 2, S2SP paging: every page of get_alerts(abstract_domains="severity")…');
    const paging = createConversation();
    const first = await paging.call(weather, 'get_alerts', { area, abstract_domains: 'severity' });
    const ids: number[] = [];
    let page = first.object;
    for (;;) {
      for (const row of page.abstract as { _row_id: number }[]) ids.push(row._row_id);
      if (typeof page.next_cursor !== 'string') break;
      page = (await paging.call(weather, 'get_alerts', { area, cursor: page.next_cursor })).object;
    }
    await paging.call(charts, 'draw_chart', {
      row_ids: ids,
      resource_url: first.object.resource_url,
      group_by: 'severity',
    });

    say('task 2, S2SP query_tables: get_alerts → query_tables(as_table) → draw_chart…');
    const withSql = createConversation();
    const split = await withSql.call(weather, 'get_alerts', { area, abstract_domains: 'severity' });
    const answer = await withSql.call(sql, 'query_tables', {
      sql: SEVERITY_SQL,
      tables: { alerts: split.object.resource_url },
      as_table: true,
      abstract_domains: 'severity,n',
    });
    const grouped = answer.object.abstract as { _row_id: number; severity: string; n: number }[];
    const drawn = await withSql.call(charts, 'draw_chart', {
      abstract_data: grouped,
      resource_url: answer.object.resource_url,
      group_by: 'severity',
      // Each row holds its count: the bars are the n values, not one row each.
      value_column: 'n',
    });
    const summary = drawn.object as { rows_charted: number; chart_url: string; chart_id: string };
    const stored = await pipeline.charts.get(summary.chart_id);
    const bars = Object.fromEntries(
      (stored?.record.panels[0]?.counts ?? []).map((bar) => [bar.value, bar.count]),
    );
    return {
      question: SEVERITY_QUESTION,
      sql: SEVERITY_SQL,
      counts: Object.fromEntries(grouped.map((row) => [row.severity, row.n])),
      rowsCharted: summary.rows_charted,
      bars,
      chartUrl: summary.chart_url,
      plain: plain.tokens(),
      paging: paging.tokens(),
      sqlTables: withSql.tokens(),
    };
  } finally {
    await weather.close();
    await sql.close();
    await charts.close();
  }
}
