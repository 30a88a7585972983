import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  type DuckDBAppender,
  DuckDBDataChunk,
  DuckDBInstance,
  DuckDBTimestampTZValue,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
  TIMESTAMPTZ,
  VARCHAR,
} from '@duckdb/node-api';
import { inferColumns, loadTable, sandboxConfig, type TableColumn } from '@s2sp/app-sql-consumer';
import {
  Bool,
  Float64,
  Int64,
  Table,
  TimestampMillisecond,
  tableFromIPC,
  tableToIPC,
  Utf8,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import { makeAlertRows } from './alert-rows.js';
import type { BenchRow } from './report.js';

const SECTION =
  '13. SQL consumer: Arrow IPC instead of JSON from the data plane (render, transfer, decode, load into DuckDB)';
const SQL = 'SELECT severity, count(*) AS n FROM t GROUP BY severity ORDER BY severity';
const CHUNK = 2048;

/** The rows of section 12, with their `_row_id`s as the data plane serves them. */
function makeRows(count: number): Record<string, unknown>[] {
  return makeAlertRows(count, { onset: true }).map((row, i) => ({ _row_id: i, ...row }));
}

/** What a data plane renders per request; the store holds the rows as JSON text. */
type Render = (stored: string) => { body: Uint8Array; type: string };

const renderJson: Render = (stored) => ({
  // The data plane wraps the stored rows without parsing them (section 2).
  body: Buffer.from(`{"body":${stored},"total_rows":0}`),
  type: 'application/json',
});

const renderArrow: Render = (stored) => {
  // An Arrow data plane must parse the stored rows, type the columns and build the vectors.
  const rows = JSON.parse(stored) as Record<string, unknown>[];
  const columns = inferColumns(rows);
  const arrays: Record<string, Vector> = {};
  for (const column of columns) {
    const values = rows.map((row) => row[column.name] ?? null);
    if (column.type === 'BIGINT')
      arrays[column.name] = vectorFromArray(
        values.map((v) => (v === null ? null : BigInt(v as number))),
        new Int64(),
      );
    else if (column.type === 'DOUBLE') arrays[column.name] = vectorFromArray(values, new Float64());
    else if (column.type === 'BOOLEAN') arrays[column.name] = vectorFromArray(values, new Bool());
    else if (column.type === 'TIMESTAMPTZ')
      arrays[column.name] = vectorFromArray(
        values.map((v) => (v === null ? null : Date.parse(v as string))),
        new TimestampMillisecond('UTC'),
      );
    else
      arrays[column.name] = vectorFromArray(
        values.map((v) => (v === null || typeof v === 'string' ? v : JSON.stringify(v))),
        new Utf8(),
      );
  }
  return {
    body: tableToIPC(new Table(arrays), 'stream'),
    type: 'application/vnd.apache.arrow.stream',
  };
};

async function serve(
  stored: string,
  render: Render,
): Promise<{ server: Server; url: string; renderMs: () => number }> {
  let renderMs = 0;
  const server = createServer((_req, res) => {
    const started = performance.now();
    const { body, type } = render(stored);
    renderMs = performance.now() - started;
    res.writeHead(200, { 'content-type': type, 'content-length': body.byteLength });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/`, renderMs: () => renderMs };
}

function duckTypeOf(column: TableColumn): DuckDBType {
  if (column.type === 'BIGINT') return BIGINT;
  if (column.type === 'DOUBLE') return DOUBLE;
  if (column.type === 'BOOLEAN') return BOOLEAN;
  if (column.type === 'TIMESTAMPTZ') return TIMESTAMPTZ;
  return VARCHAR;
}

/** Appends an Arrow table column by column, one data chunk per 2,048 rows. */
function appendArrow(appender: DuckDBAppender, table: Table, columns: readonly TableColumn[]) {
  const types = columns.map(duckTypeOf);
  const vectors = columns.map((c) => table.getChild(c.name));
  for (let start = 0; start < table.numRows; start += CHUNK) {
    const count = Math.min(CHUNK, table.numRows - start);
    const chunk = DuckDBDataChunk.create(types, count);
    columns.forEach((_column, i) => {
      const vector = vectors[i];
      const values: DuckDBValue[] = new Array(count);
      for (let r = 0; r < count; r++) {
        const v = vector?.get(start + r) as unknown;
        if (v === null || v === undefined) values[r] = null;
        else if (types[i]?.typeId === DuckDBTypeId.TIMESTAMP_TZ)
          values[r] = new DuckDBTimestampTZValue(BigInt(v as number) * 1000n);
        else values[r] = v as DuckDBValue;
      }
      chunk.setColumnValues(i, values);
    });
    appender.appendDataChunk(chunk);
  }
}

async function endToEnd(stored: string, format: 'json' | 'arrow') {
  const { server, url, renderMs } = await serve(
    stored,
    format === 'json' ? renderJson : renderArrow,
  );
  const instance = await DuckDBInstance.create(
    ':memory:',
    sandboxConfig({ memoryLimitMb: 1024, threads: 2 }),
  );
  const connection = await instance.connect();
  try {
    const started = performance.now();
    const response = await fetch(url, { method: 'POST' });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const fetched = performance.now();
    let loadStarted: number;
    if (format === 'json') {
      const rows = (
        JSON.parse(Buffer.from(bytes).toString('utf8')) as { body: Record<string, unknown>[] }
      ).body;
      loadStarted = performance.now();
      await loadTable(connection, 't', rows, { maxRows: 1_000_000, maxColumns: 256 });
    } else {
      const table = tableFromIPC(bytes);
      loadStarted = performance.now();
      // The consumer still types the columns itself (here from the Arrow schema's names, as sent).
      const columns: TableColumn[] = table.schema.fields.map((f) => ({
        name: f.name,
        type:
          f.typeId === new Int64().typeId
            ? 'BIGINT'
            : f.typeId === new Float64().typeId
              ? 'DOUBLE'
              : f.typeId === new Bool().typeId
                ? 'BOOLEAN'
                : f.typeId === new TimestampMillisecond().typeId
                  ? 'TIMESTAMPTZ'
                  : 'VARCHAR',
      }));
      await connection.run(
        `CREATE TABLE t (${columns.map((c) => `"${c.name}" ${c.type}`).join(', ')})`,
      );
      const appender = await connection.createAppender('t');
      appendArrow(appender, table, columns);
      appender.flushSync();
      appender.closeSync();
    }
    const queryStarted = performance.now();
    const result = await connection.runAndReadAll(SQL);
    const ended = performance.now();
    const counted = result.getRowObjectsJS().reduce((sum, row) => sum + Number(row.n), 0);
    return {
      total: ended - started,
      render: renderMs(),
      transfer: fetched - started - renderMs(),
      decode: loadStarted - fetched,
      load: queryStarted - loadStarted,
      query: ended - queryStarted,
      bytes: bytes.byteLength,
      counted,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
    server.close();
  }
}

/**
 * The Arrow question, end to end for the SQL consumer on one machine: a data plane that
 * serves the stored rows as JSON (as today, without parsing them) or renders them as an Arrow IPC
 * stream (parse, type, build vectors), the consumer decoding the answer and loading it into
 * DuckDB (JSON: `loadTable`, as sql-consumer does; Arrow: column by column in data chunks), then
 * the GROUP BY. Loopback HTTP, no MCP, no store: the parts that differ between the two formats.
 */
export async function sqlArrowBenchmark(quick: boolean): Promise<BenchRow[]> {
  const count = quick ? 10_000 : 100_000;
  const stored = JSON.stringify(makeRows(count));
  const runs = quick ? 1 : 3;
  const out: BenchRow[] = [];
  for (const format of ['json', 'arrow'] as const) {
    const results = [];
    for (let run = 0; run < runs; run++) {
      const result = await endToEnd(stored, format);
      if (result.counted !== count)
        throw new Error(`${format}: counted ${result.counted} of ${count}`);
      results.push(result);
    }
    results.sort((a, b) => a.total - b.total);
    const median = results[Math.floor(results.length / 2)] as (typeof results)[number];
    out.push({
      section: SECTION,
      name: `${count.toLocaleString('en-US')} rows as ${format === 'json' ? 'JSON' : 'Arrow IPC stream'}`,
      how: `data plane on loopback node:http, consumer fetch + decode + DuckDB load + ${SQL}; median of ${runs} by total`,
      values: {
        'total ms': Math.round(median.total),
        'render ms': Math.round(median.render),
        'transfer ms': Math.round(median.transfer),
        'decode ms': Math.round(median.decode),
        'load ms': Math.round(median.load),
        'query ms': Math.round(median.query),
        MB: Math.round(median.bytes / 1e5) / 10,
      },
    });
  }
  return out;
}
