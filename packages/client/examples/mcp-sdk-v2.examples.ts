// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below. It runs against `pnpm dev` of a clone (weather-alerts on
// :3001, chart-consumer on :3002).

// #region readme
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { S2SPDispatcher, withS2SP } from '@s2sp/client';

async function connect(url: string): Promise<Client> {
  // 'auto' speaks 2026-07-28 where the server does, and 2025-11-25 elsewhere.
  const client = new Client(
    { name: 'analyst', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const dispatcher = new S2SPDispatcher(); // one per agent: handles travel between servers
const weather = withS2SP(await connect('http://127.0.0.1:3001/mcp'), { dispatcher }); // a Client
const charts = withS2SP(await connect('http://127.0.0.1:3002/mcp'), { dispatcher });

// Sync mode: the body comes back inline, and withS2SP keeps it out of what the model reads.
const alerts = await weather.callTool({
  name: 'get_alerts',
  arguments: { area: 'TX', abstract_domains: 'event', mode: 'sync' },
});
const { abstract, resource_url } = alerts.structuredContent as {
  abstract: { _row_id: number; event: string }[];
  resource_url: string; // ddi://…: a handle to the body, held in this process
};
// The model chooses rows by the columns it reads; the consumer receives their full rows.
const heat = abstract.filter((row) => row.event.includes('Heat'));
const chart = await charts.callTool({
  name: 'draw_chart',
  arguments: { abstract_data: heat, resource_url },
});
console.log(JSON.stringify(chart.content)); // [{"type":"text","text":"{\"chart_id\":…,\"chart_url\":…}"}]
await weather.close();
await charts.close();
// #endregion readme
