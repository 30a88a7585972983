import { MCPClient } from '@mastra/mcp';
import { describe, expect, it } from 'vitest';
import { S2SPDispatcher, withS2SP } from '../src/mastra.js';
import { BODY_MARKER, expectedRows, startPipeline } from './pipeline.js';
import { handleIn } from './sync-fixture.js';

type Execute = (input: unknown, context?: unknown) => Promise<unknown>;
let clients = 0;

describe('withS2SP (Mastra MCPClient, @mastra/mcp 2 on the MCP SDK v2)', () => {
  it('hands out tools that strip the body and redeem the handle once', async () => {
    await using pipeline = await startPipeline();
    const dispatcher = new S2SPDispatcher();
    const plain = new MCPClient({
      id: `s2sp-unit-${++clients}`,
      servers: {
        alerts: { url: new URL(pipeline.resource.mcpUrl) },
        summaries: { url: new URL(pipeline.consumer.mcpUrl) },
      },
    });
    const mcp = withS2SP(plain, { dispatcher });
    try {
      const tools = await mcp.listTools();
      expect(Object.keys(tools).sort()).toEqual([
        'alerts_get_alerts',
        'summaries_summarise_alerts',
      ]);
      const original = (await plain.listTools()).alerts_get_alerts;
      // Still Mastra's Tool class, so the agent treats it as its own.
      expect(Object.getPrototypeOf(tools.alerts_get_alerts)).toBe(Object.getPrototypeOf(original));
      const getAlerts = tools.alerts_get_alerts?.execute as Execute;
      const summarise = tools.summaries_summarise_alerts?.execute as Execute;
      const seen = await getAlerts({ abstract_domains: 'event', mode: 'sync' });
      expect(JSON.stringify(seen)).not.toContain(BODY_MARKER);
      const handle = handleIn(JSON.stringify(seen));
      const { abstract } = seen as { abstract: { _row_id: number }[] };
      const chosen = abstract.filter((row) => row._row_id === 2);
      const args = { abstract_data: JSON.stringify(chosen), resource_url: handle };
      await summarise(args);
      expect(pipeline.received).toEqual([expectedRows([2])]);
      const stale = (await summarise(args)) as { isError?: boolean };
      expect(stale.isError).toBe(true);
      expect(pipeline.received).toHaveLength(1);

      // Every other way Mastra hands out tools rewrites too.
      const { toolsets } = await mcp.listToolsetsWithErrors();
      expect(Object.keys(toolsets).sort()).toEqual(['alerts', 'summaries']);
      const { tools: listed } = await mcp.listToolsWithErrors();
      const definitions = await mcp.listToolDefinitions();
      const fromDefinitions = await mcp.toolsFromDefinitions({ definitions });
      const definition = definitions.alerts?.get_alerts;
      if (!definition) throw new Error('no alerts.get_alerts definition');
      const fromDefinition = await mcp.toolFromDefinition({ serverName: 'alerts', definition });
      const sources = [
        (await mcp.listToolsets()).alerts?.get_alerts,
        toolsets.alerts?.get_alerts,
        listed.alerts_get_alerts,
        fromDefinitions.alerts_get_alerts,
        fromDefinition,
      ];
      for (const tool of sources) {
        const execute = tool?.execute as Execute | undefined;
        if (!execute) throw new Error('a tool source lost get_alerts');
        const again = await execute({ abstract_domains: 'event', mode: 'sync' });
        expect(JSON.stringify(again)).not.toContain(BODY_MARKER);
        expect(handleIn(JSON.stringify(again))).toMatch(/^ddi:\/\//);
      }
      expect(dispatcher.pending).toBe(sources.length);
    } finally {
      await plain.disconnect();
    }
  });

  it('wraps only the methods that hand out tools, not those every object has', () => {
    const plain = new MCPClient({ id: `s2sp-unit-${++clients}`, servers: {} });
    const mcp = withS2SP(plain);
    expect(mcp.toString()).toBe(plain.toString());
    expect(Object.hasOwn(mcp, 'id')).toBe(Object.hasOwn(plain, 'id'));
  });
});
