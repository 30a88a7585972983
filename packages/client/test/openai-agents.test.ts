import { MCPServerStreamableHttp } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { S2SPDispatcher, withS2SP } from '../src/openai-agents.js';
import { BODY_MARKER, expectedRows, startPipeline } from './pipeline.js';
import { handleIn } from './sync-fixture.js';

type Content = { type: string; text: string }[] & {
  isError?: boolean;
  structuredContent?: unknown;
};

async function connect(name: string, url: string, useStructuredContent = false) {
  const server = new MCPServerStreamableHttp({ name, url, useStructuredContent });
  await server.connect();
  return server;
}

describe('withS2SP (OpenAI Agents MCP server)', () => {
  it('strips the body from callTool and callToolResult, and redeems the handle once', async () => {
    await using pipeline = await startPipeline();
    const dispatcher = new S2SPDispatcher();
    const alerts = withS2SP(await connect('alerts', pipeline.resource.mcpUrl), { dispatcher });
    const summaries = withS2SP(await connect('summaries', pipeline.consumer.mcpUrl), {
      dispatcher,
    });
    try {
      expect(alerts.name).toBe('alerts');
      expect((await alerts.listTools()).map((tool) => tool.name)).toEqual(['get_alerts']);
      const args = { abstract_domains: 'event', mode: 'sync' };
      const content = (await alerts.callTool('get_alerts', args)) as Content;
      expect(JSON.stringify(content)).not.toContain(BODY_MARKER);
      // The metadata the SDK hangs on the array is rewritten too (useStructuredContent reads it).
      expect(JSON.stringify(content.structuredContent)).not.toContain(BODY_MARKER);
      const handle = handleIn(content[0]?.text ?? '');
      expect((content.structuredContent as { resource_url?: string }).resource_url).toBe(handle);

      const full = (await alerts.callToolResult?.('get_alerts', args)) as { content: unknown };
      expect(JSON.stringify(full)).not.toContain(BODY_MARKER);
      expect(dispatcher.pending).toBe(2);

      const { abstract } = JSON.parse(content[0]?.text ?? '') as {
        abstract: { _row_id: number }[];
      };
      const chosen = abstract.filter((row) => row._row_id === 1 || row._row_id === 4);
      const call = { abstract_data: JSON.stringify(chosen) };
      const done = (await summaries.callTool('summarise_alerts', {
        ...call,
        resource_url: handle,
      })) as Content;
      expect(done.isError).toBeUndefined();
      expect(pipeline.received).toEqual([expectedRows([1, 4])]);

      const stale = (await summaries.callTool('summarise_alerts', {
        ...call,
        resource_url: handle,
      })) as Content;
      expect(stale.isError).toBe(true);
      expect(stale[0]?.text).toContain('ddi://');
      expect(pipeline.received).toHaveLength(1);
    } finally {
      await alerts.close();
      await summaries.close();
    }
  });

  it('passes async results and http(s) resource_urls through untouched', async () => {
    await using pipeline = await startPipeline();
    const alerts = withS2SP(await connect('alerts', pipeline.resource.mcpUrl));
    try {
      const content = (await alerts.callTool('get_alerts', {
        abstract_domains: 'event',
      })) as Content;
      expect(handleIn.bind(null, content[0]?.text ?? '')).toThrow();
      expect(JSON.parse(content[0]?.text ?? '').resource_url).toMatch(/^http:\/\/127\.0\.0\.1/);
    } finally {
      await alerts.close();
    }
  });
});
