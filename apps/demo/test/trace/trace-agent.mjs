// The agent side of the one-trace test, as its own process: one root span for the demo task,
// whose context goes to each tool call in `_meta.traceparent` (W3C Trace Context over MCP).
// Usage: node --import ./otel-preload.mjs trace-agent.mjs <weather mcp url> <chart mcp url>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { context, propagation, trace } from '@opentelemetry/api';

const [weatherUrl, chartUrl] = process.argv.slice(2);

async function connect(url) {
  const client = new Client({ name: 'trace-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function call(client, name, args) {
  const _meta = {};
  propagation.inject(context.active(), _meta);
  return client.callTool({ name, arguments: args, _meta });
}

const weather = await connect(weatherUrl);
const charts = await connect(chartUrl);
const tracer = trace.getTracer('s2sp-demo-agent');
const out = await tracer.startActiveSpan('demo task', async (span) => {
  try {
    const filter = { event: { contains: 'Heat' } };
    const alerts = await call(weather, 'get_alerts', {
      area: 'TX',
      abstract_domains: 'event,severity,urgency,status',
      filter,
    });
    const { resource_url } = alerts.structuredContent;
    const chart = await call(charts, 'draw_chart', { filter, resource_url });
    return { alerts, chart };
  } finally {
    span.end();
  }
});
await weather.close();
await charts.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
