import { type ChartServer, createChartServer } from '@s2sp/app-chart-consumer';
import { createSqlServer } from '@s2sp/app-sql-consumer';
import {
  createWeatherServer,
  NWS_API_URL,
  type NwsReplayServer,
  startNwsReplayServer,
} from '@s2sp/app-weather-alerts';
import type { ListeningServer, LogFields, Logger } from '@s2sp/server';

/** The three servers of the demo, on free loopback ports. */
export interface Pipeline {
  readonly nwsBaseUrl: string;
  readonly replay: NwsReplayServer | undefined;
  readonly weather: ListeningServer;
  readonly chart: ListeningServer;
  /** The SQL consumer (query_tables), allowed to fetch from weather-alerts. */
  readonly sql: ListeningServer;
  readonly charts: ChartServer['charts'];
  /** Bytes the weather-alerts data plane has sent to consumers (server to server). */
  readonly dataPlaneBytes: () => number;
  close(): Promise<void>;
}

/**
 * A logger that is quiet except for warnings and errors (printed as progress lines), and that
 * reads the data plane's "redeemed" lines to count server-to-server bytes.
 */
function demoLogger(say: (line: string) => void, onRedeemed: (bytes: number) => void): Logger {
  const describe = (message: string, fields?: LogFields) =>
    `${message}${
      fields
        ? ` ${Object.entries(fields)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(' ')}`
        : ''
    }`;
  return {
    debug() {},
    info(message, fields) {
      if (message === 'data plane: redeemed' && typeof fields?.bytes === 'number')
        onRedeemed(fields.bytes);
    },
    warn: (message, fields) => say(`warning: ${describe(message, fields)}`),
    error: (message, fields) => say(`error: ${describe(message, fields)}`),
  };
}

/**
 * Starts the NWS replay server (unless `live`), weather-alerts pointed at it, sql-consumer allowed
 * to fetch only from weather-alerts, and chart-consumer allowed to fetch only from those two.
 */
export async function startPipeline(options: {
  live: boolean;
  say: (line: string) => void;
}): Promise<Pipeline> {
  let dataPlaneBytes = 0;
  const logger = demoLogger(options.say, (bytes) => {
    dataPlaneBytes += bytes;
  });
  const replay = options.live
    ? undefined
    : await startNwsReplayServer({ port: 0, host: '127.0.0.1' });
  const nwsBaseUrl = replay?.url ?? NWS_API_URL;
  const closers: (() => Promise<void>)[] = [];
  try {
    if (replay) closers.push(() => replay.close());
    options.say(
      replay
        ? `NWS replay server (recorded NWS data, offline) at ${replay.url}`
        : `using the live NWS API at ${nwsBaseUrl}`,
    );

    // The compact encoding (PROTOCOL §7): the model reads a header row plus value rows.
    const weatherServer = createWeatherServer({
      nws: { baseUrl: nwsBaseUrl },
      logger,
      abstractEncoding: 'compact',
    });
    const weather = await weatherServer.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => weatherServer.close());
    options.say(`weather-alerts (S2SP resource server) at ${weather.mcpUrl}`);

    const sqlServer = createSqlServer({ allowedOrigins: [weather.url], logger });
    const sql = await sqlServer.server.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => sqlServer.server.close());
    options.say(`sql-consumer (S2SP consumer server, DuckDB) at ${sql.mcpUrl}`);

    const chartServer = createChartServer({ allowedOrigins: [weather.url, sql.url], logger });
    const chart = await chartServer.server.listen({ port: 0, host: '127.0.0.1' });
    chartServer.setBaseUrl(chart.url);
    closers.push(() => chartServer.server.close());
    options.say(`chart-consumer (S2SP consumer server) at ${chart.mcpUrl}`);

    return {
      nwsBaseUrl,
      replay,
      weather,
      chart,
      sql,
      charts: chartServer.charts,
      dataPlaneBytes: () => dataPlaneBytes,
      async close() {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw error;
  }
}
