/**
 * Shared setup of the chart consumer's integration tests: a real resource server serving the
 * recorded NWS Texas alerts, and the chart consumer, both on loopback ports.
 */
import { readFileSync } from 'node:fs';
import { createS2SPServer, type ListeningServer, silentLogger } from '@s2sp/server';
import { type ChartServer, createChartServer } from '../src/chart-server.js';

/** The recorded NWS alerts for Texas (2026-09-13), as weather-alerts turns them into rows. */
export function texasAlertRows(): Record<string, unknown>[] {
  const file = new URL(
    '../../weather-alerts/fixtures/alerts-active-TX-2026-09-13.json',
    import.meta.url,
  );
  const collection = JSON.parse(readFileSync(file, 'utf8')) as {
    features: { properties: Record<string, unknown> }[];
  };
  return collection.features.map((f) =>
    Object.fromEntries(Object.entries(f.properties).filter(([key]) => !key.startsWith('@'))),
  );
}

export interface ChartPipeline extends AsyncDisposable {
  readonly resource: ListeningServer;
  readonly chartHttp: ListeningServer;
  readonly chart: ChartServer;
}

/** Starts both servers; the chart consumer only fetches from the resource server's origin. */
export async function startChartPipeline(
  rows: Record<string, unknown>[] = texasAlertRows(),
): Promise<ChartPipeline> {
  const resourceServer = createS2SPServer({ name: 'alerts', version: '1', logger: silentLogger });
  resourceServer.resourceTool('get_alerts', { description: 'Alerts.' }, () => rows);
  const resource = await resourceServer.listen();
  const chart = createChartServer({ allowedOrigins: [resource.url], logger: silentLogger });
  const chartHttp = await chart.server.listen();
  chart.setBaseUrl(chartHttp.url);
  return {
    resource,
    chartHttp,
    chart,
    async [Symbol.asyncDispose]() {
      await resourceServer.close();
      await chart.server.close();
    },
  };
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!signature.every((byte, i) => png[i] === byte)) throw new Error('not a PNG');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
