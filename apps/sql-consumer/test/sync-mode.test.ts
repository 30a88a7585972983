import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { S2SPDispatcher, withS2SP } from '@s2sp/client';
import { describe, expect, it } from 'vitest';
import { startSqlPipeline, texasSeverityCounts } from './support.js';

type ToolResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

async function sdkClient(url: string): Promise<Client> {
  const client = new Client({ name: 'sync-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('query_tables in sync mode, through the MCP SDK withS2SP', () => {
  it('gets the rows behind a ddi:// handle inside tables, swapped by the agent’s dispatcher', async () => {
    await using pipeline = await startSqlPipeline();
    const dispatcher = new S2SPDispatcher();
    const weather = withS2SP(await sdkClient(pipeline.weather.mcpUrl), { dispatcher });
    const sql = withS2SP(await sdkClient(pipeline.sql.mcpUrl), { dispatcher });
    try {
      const split = (await weather.callTool({
        name: 'get_alerts',
        arguments: { area: 'TX', abstract_domains: 'severity', mode: 'sync' },
      })) as ToolResult;
      const handle = split.structuredContent?.resource_url as string;
      expect(handle.startsWith('ddi://')).toBe(true);
      expect(JSON.stringify(split)).not.toContain('"body"');
      expect(dispatcher.pending).toBe(1);

      // A bare handle string has no resource_url member to swap at: refused, handle kept.
      const bare = (await sql.callTool({
        name: 'query_tables',
        arguments: { sql: 'SELECT count(*) AS n FROM alerts', tables: { alerts: handle } },
      })) as ToolResult;
      expect(bare._meta?.['s2sp/error-code']).toBe('invalid_request');
      expect(bare.content[0]?.text).toContain('{"alerts": {"resource_url": "ddi://…"}}');
      expect(dispatcher.pending).toBe(1);

      const answer = (await sql.callTool({
        name: 'query_tables',
        arguments: {
          sql: 'SELECT severity, count(*) AS n FROM alerts GROUP BY severity',
          // The body holds the columns the model did not see; abstract_data brings severity.
          tables: JSON.stringify({
            alerts: { resource_url: handle, abstract_data: split.structuredContent?.abstract },
          }),
        },
      })) as ToolResult;
      expect(answer.isError).toBeFalsy();
      const rows = (answer.structuredContent as { rows: { severity: string; n: number }[] }).rows;
      expect(Object.fromEntries(rows.map((r) => [r.severity, r.n]))).toEqual(texasSeverityCounts());
      expect(dispatcher.pending).toBe(0);
    } finally {
      await weather.close();
      await sql.close();
    }
  });

  it('sends no rows to a server that declares S2SP without the consumer role', async () => {
    await using pipeline = await startSqlPipeline();
    const dispatcher = new S2SPDispatcher();
    const weather = withS2SP(await sdkClient(pipeline.weather.mcpUrl), { dispatcher });
    try {
      const split = (await weather.callTool({
        name: 'get_alerts',
        arguments: { area: 'TX', abstract_domains: 'severity', mode: 'sync' },
      })) as ToolResult;
      const handle = split.structuredContent?.resource_url as string;
      // weather-alerts declares only the resource role.
      const refused = (await weather.callTool({
        name: 'get_alerts',
        arguments: { area: 'TX', tables: { alerts: { resource_url: handle } } },
      })) as ToolResult;
      expect(refused._meta?.['s2sp/error-code']).toBe('forbidden');
      expect(dispatcher.pending).toBe(1);
    } finally {
      await weather.close();
    }
  });
});
