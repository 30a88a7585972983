/**
 * Shared setup of the SQL consumer's integration tests: the NWS replay server (recorded data,
 * offline), weather-alerts on it, the SQL consumer allowed to fetch only from weather-alerts, and
 * chart-consumer allowed to fetch only from the SQL consumer — all on loopback port 0.
 */
import { readFileSync } from 'node:fs';
import { type ChartServer, createChartServer } from '@s2sp/app-chart-consumer';
import { createWeatherServer, startNwsReplayServer } from '@s2sp/app-weather-alerts';
import { type ListeningServer, silentLogger } from '@s2sp/server';
import { createSqlServer, type SqlServerOptions } from '../src/sql-server.js';

/** Severity counts of every alert `get_alerts(area="TX")` returns from the replay. */
export function texasSeverityCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  // Both Texas recordings (the replay serves their union, newest first; see weather-alerts tests).
  for (const file of ['alerts-active-TX-2026-09-13.json', 'alerts-active-TX-2026-08-08.json']) {
    const url = new URL(`../../weather-alerts/fixtures/${file}`, import.meta.url);
    const collection = JSON.parse(readFileSync(url, 'utf8')) as {
      features: { properties: { severity: string } }[];
    };
    for (const feature of collection.features) {
      const severity = feature.properties.severity;
      counts[severity] = (counts[severity] ?? 0) + 1;
    }
  }
  return counts;
}

export interface SqlPipeline extends AsyncDisposable {
  readonly weather: ListeningServer;
  readonly sql: ListeningServer;
  readonly chart: ListeningServer;
  /** chart-consumer's chart store: the bars it drew. */
  readonly charts: ChartServer['charts'];
}

/** Starts the replay, weather-alerts, the SQL consumer and chart-consumer. */
export async function startSqlPipeline(
  options: Omit<SqlServerOptions, 'allowedOrigins'> = {},
): Promise<SqlPipeline> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const replay = await startNwsReplayServer({ port: 0, host: '127.0.0.1' });
    closers.push(() => replay.close());
    const weatherServer = createWeatherServer({
      nws: { baseUrl: replay.url },
      logger: silentLogger,
    });
    const weather = await weatherServer.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => weatherServer.close());
    const sqlServer = createSqlServer({
      logger: silentLogger,
      ...options,
      allowedOrigins: [weather.url],
    });
    const sql = await sqlServer.server.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => sqlServer.server.close());
    const chartServer = createChartServer({ allowedOrigins: [sql.url], logger: silentLogger });
    const chart = await chartServer.server.listen({ port: 0, host: '127.0.0.1' });
    chartServer.setBaseUrl(chart.url);
    closers.push(() => chartServer.server.close());
    return {
      weather,
      sql,
      chart,
      charts: chartServer.charts,
      async [Symbol.asyncDispose]() {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw error;
  }
}
