// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

declare const weatherClient: Client;
declare const chartClient: Client;
declare const chosenRows: string;
declare const handle: string;

// #region readme
import { S2SPDispatcher, withS2SP } from '@s2sp/client';

const dispatcher = new S2SPDispatcher(); // one per agent: handles travel between servers
const weather = withS2SP(weatherClient, { dispatcher }); // still a Client
const charts = withS2SP(chartClient, { dispatcher });

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
// #endregion readme
