// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below.
declare const chosenRows: string;
declare const handle: string;

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

const alerts = await weather.callTool({
  name: 'get_alerts',
  arguments: { area: 'TX', abstract_domains: 'event', mode: 'sync' },
});
// alerts has no body; its resource_url is ddi://…
await charts.callTool({
  name: 'draw_chart',
  arguments: { abstract_data: chosenRows, resource_url: handle },
});
console.log(alerts);
// #endregion
