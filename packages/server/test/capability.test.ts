import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readS2SPCapability } from '@s2sp/core';
import { connectMcpClient } from '@s2sp/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { createS2SP, createS2SPServer, silentLogger } from '../src/index.js';

const server = createS2SPServer({ name: 'caps', version: '1', logger: silentLogger });
server
  .resourceTool('rows', { description: 'Rows.' }, () => [{ a: 1 }])
  .consumerTool('count', { description: 'Counts.' }, (rows) => rows.length);
afterAll(() => server.close());

describe('S2SP in the MCP capabilities (PROTOCOL §7.7)', () => {
  it('declares version, data-plane path and roles at initialisation', async () => {
    const listening = await server.listen();
    await using agent = await connectMcpClient(listening.mcpUrl);
    const capabilities = agent.client.getServerCapabilities();
    expect(capabilities?.experimental?.s2sp).toEqual({
      version: '0.2',
      dataPlanePath: '/s2sp/data/',
      roles: ['consumer', 'resource'],
    });
    expect(capabilities?.tools).toBeDefined();
    expect(readS2SPCapability(capabilities)?.version).toBe('0.2');
  });

  it('adds to the capabilities of your own McpServer, keeping yours', () => {
    const s2sp = createS2SP({ logger: silentLogger });
    const mcp = new McpServer({ name: 'mine', version: '1' }, { capabilities: { logging: {} } });
    mcp.server.registerCapabilities({ experimental: { mine: { on: true } } });
    s2sp.registerResourceTool(mcp, 'rows', { description: 'Rows.' }, () => []);
    const declared = (
      mcp.server as unknown as { getCapabilities(): Record<string, unknown> }
    ).getCapabilities() as { logging?: object; experimental?: Record<string, unknown> };
    expect(declared.logging).toEqual({});
    expect(declared.experimental?.mine).toEqual({ on: true });
    expect(readS2SPCapability(declared)?.roles).toEqual(['resource']);
  });
});
