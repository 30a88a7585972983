/**
 * A table tool's entry in `tools/list` through the proxy: the S2SP parameters in their short form
 * and one line, at most 150 o200k tokens more than the upstream's entry before its column
 * catalogue; the how-to once, in the instructions the proxy serves after the upstream's own.
 * Measured on every tool of the real-server matrix (their recorded tool lists) and of the proxy's
 * fixtures, each made a table tool; the bench's tools/list section reports the same figures.
 */
import { silentLogger } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { PROXY_INSTRUCTIONS } from '../src/advice.js';
import type { Tool } from '../src/mcp-sdk.js';
import { createS2SPCall, GATEWAY_PARTS, S2SP_PARAMETERS } from '../src/tables/s2sp-call.js';
import { createTableTools } from '../src/tables/table-tools.js';
import { type ListedTool, measuredUpstreams, toolCosts } from './real-servers/listing-tokens.js';
import { recordedToolLists } from './real-servers/tool-lists.js';
import { httpClient, startProxy, stdioClient, TABLE_SERVER } from './support.js';

/** The most o200k tokens S2SP may add to a table tool's entry before its column catalogue. */
const MAX_ADDED_TOKENS = 150;

/** Every tool of `tools` listed as a configured table tool, as the proxy's registry lists it. */
async function asTableTools(tools: readonly Tool[]): Promise<Tool[]> {
  const seam = createS2SPCall({ publicUrl: 'http://127.0.0.1:3010', logger: silentLogger });
  try {
    const tables = createTableTools({
      include: tools.map((tool) => ({ name: tool.name })),
      describe: (description) => seam.describe(description),
      parameters: () => S2SP_PARAMETERS,
      measures: GATEWAY_PARTS,
      logger: silentLogger,
    });
    return tables.decorate(tools, 'client');
  } finally {
    await seam.close();
  }
}

/** Tools over the bound, as `server tool: tokens` (none when every tool is within it). */
async function overTheBound(server: string, tools: readonly Tool[]): Promise<string[]> {
  const listed = await asTableTools(tools);
  return toolCosts(tools as unknown as ListedTool[], listed as unknown as ListedTool[])
    .filter((cost) => cost.added > MAX_ADDED_TOKENS)
    .map((cost) => `${server} ${cost.tool}: ${cost.added}`);
}

describe("a table tool's entry in tools/list", () => {
  it('gains at most 150 o200k tokens before its catalogue, on every matrix tool', async () => {
    const over: string[] = [];
    let measured = 0;
    for (const [server, list] of Object.entries(recordedToolLists())) {
      measured += list.tools.length;
      over.push(...(await overTheBound(server, list.tools as unknown as Tool[])));
    }
    expect(measured).toBeGreaterThan(100);
    expect(over).toEqual([]);
  });

  it("gains at most 150 o200k tokens before its catalogue, on every tool of the proxy's fixtures", async () => {
    const over: string[] = [];
    for (const { name, upstream } of measuredUpstreams(
      new URL('./fixtures/', import.meta.url),
      [],
    )) {
      await using direct = await stdioClient(upstream);
      const { tools } = await direct.client.listTools();
      expect(tools.length, name).toBeGreaterThan(0);
      over.push(...(await overTheBound(name, tools as Tool[])));
    }
    expect(over).toEqual([]);
  });

  it('through a running proxy: the short entries, and the how-to once in its instructions', async () => {
    await using direct = await stdioClient(TABLE_SERVER);
    const upstream = (await direct.client.listTools()).tools;
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: upstream.map((tool) => ({ name: tool.name })),
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const proxied = (await agent.client.listTools()).tools;
    const costs = toolCosts(
      upstream as unknown as ListedTool[],
      proxied as unknown as ListedTool[],
    );
    expect(costs.map((cost) => cost.tool)).toEqual(upstream.map((tool) => tool.name));
    for (const cost of costs) expect(cost.added, cost.tool).toBeLessThanOrEqual(MAX_ADDED_TOKENS);
    // The upstream's instructions first, unchanged; then the proxy's, labelled, naming each
    // parameter the listing no longer describes.
    const instructions = agent.client.getInstructions() ?? '';
    const own = `${direct.client.getInstructions()}\n\n`;
    expect(instructions.startsWith(own)).toBe(true);
    expect(instructions.slice(own.length).startsWith(PROXY_INSTRUCTIONS.label)).toBe(true);
    for (const parameter of Object.keys(S2SP_PARAMETERS).filter((name) => name !== 'mode'))
      expect(instructions).toContain(parameter);
  });
});
