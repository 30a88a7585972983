// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below. It runs against `pnpm dev` of a clone (weather-alerts on
// :3001, chart-consumer on :3002).

// #region readme
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { S2SPDispatcher, withS2SP } from '@s2sp/client';

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'analyst', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const dispatcher = new S2SPDispatcher(); // one per agent: handles travel between servers
const weather = withS2SP(await connect('http://127.0.0.1:3001/mcp'), { dispatcher }); // a Client
const charts = withS2SP(await connect('http://127.0.0.1:3002/mcp'), { dispatcher });

const alerts = await weather.callTool({
  name: 'get_alerts',
  arguments: { area: 'TX', abstract_domains: 'event', mode: 'sync' },
});
const { abstract, resource_url } = alerts.structuredContent as {
  abstract: { _row_id: number; event: string }[];
  resource_url: string; // ddi://…: a handle to the body, held in this process
};
const heat = abstract.filter((row) => row.event.includes('Heat'));
const chart = await charts.callTool({
  name: 'draw_chart',
  arguments: { abstract_data: heat, resource_url },
});
console.log(JSON.stringify(chart.content));
await weather.close();
await charts.close();
// #endregion readme
