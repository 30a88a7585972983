// Results that cannot be paged are refused over the budget, and pages count in the per-client
// quota (PROTOCOL §7.2), through the real /mcp endpoint.

import { S2SPResultSchema } from '@s2sp/core';
import { connectMcpClient, type ToolResult, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createS2SPServer, type S2SPServer, silentLogger } from '../src/index.js';
import { estimateTokens } from '../src/resource/token-estimate.js';

const ROWS = 400;
const table = Array.from({ length: ROWS }, (_, i) => ({
  id: `alert-${i}`,
  event: i % 2 === 0 ? 'Flood Warning' : 'Wind Advisory',
  magnitude: i % 10,
  description: `Long text ${i} `.repeat(20),
}));
const BUDGET = 800;

// A cached result of one row: one entry, no pages.
const ONE_ROW = { abstract_domains: 'id', filter: { id: 'alert-1' } };

const errorCode = (result: ToolResult) =>
  (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'];

function build(options: { maxEntriesPerClient?: number } = {}): S2SPServer {
  return createS2SPServer({
    name: 'budget',
    version: '1',
    logger: silentLogger,
    tokenBudget: BUDGET,
    ...options,
  })
    .resourceTool('get_table', { description: 'A large table.' }, () => table)
    .resourceTool(
      'own_cursor',
      {
        description: 'Pages its own upstream with cursor.',
        inputSchema: { cursor: z.string().optional() },
      },
      ({ cursor }) => (cursor === 'small' ? table.slice(0, 5) : table),
    );
}

describe('a result that cannot be paged', () => {
  it('is refused in sync mode over the budget, and served when a filter narrows it', async () => {
    await using listening = await build().listen();
    await using agent = await connectMcpClient(listening.mcpUrl);
    const over = await agent.call('get_table', {
      abstract_domains: 'event,magnitude',
      mode: 'sync',
    });
    expect(over.isError).toBe(true);
    expect(errorCode(over)).toBe('payload_too_large');

    const narrowed = await agent.call('get_table', {
      abstract_domains: 'magnitude',
      mode: 'sync',
      filter: { magnitude: 3 },
    });
    expect(narrowed.isError, textOf(narrowed)).toBeFalsy();
    const object = S2SPResultSchema.parse(narrowed.structuredContent);
    expect(object.matched_rows).toBe(40);
    expect(object.body).toHaveLength(40);
    expect(object.next_cursor).toBeUndefined();
  });

  it('is refused for a tool whose own cursor is not the S2SP one, with no entry cached', async () => {
    const server = build();
    await using listening = await server.listen();
    await using agent = await connectMcpClient(listening.mcpUrl);
    const over = await agent.call('own_cursor', { abstract_domains: 'event,magnitude' });
    expect(over.isError).toBe(true);
    expect(errorCode(over)).toBe('payload_too_large');
    expect((await server.store.stats()).entries).toBe(0);

    // The tool's own cursor reaches its handler; a result within the budget is served whole.
    const small = await agent.call('own_cursor', { abstract_domains: 'event', cursor: 'small' });
    expect(small.isError, textOf(small)).toBeFalsy();
    const object = S2SPResultSchema.parse(small.structuredContent);
    expect(object.abstract).toHaveLength(5);
    expect(object.next_cursor).toBeUndefined();
    expect(estimateTokens(textOf(small))).toBeLessThanOrEqual(BUDGET);
  });
});

describe('pages in the per-client quota', () => {
  it('counts unread pages as entries and frees one per page read', async () => {
    const server = build({ maxEntriesPerClient: 20 });
    await using listening = await server.listen();
    await using agent = await connectMcpClient(listening.mcpUrl);
    const first = await agent.call('get_table', { abstract_domains: 'event' });
    expect(first.isError, textOf(first)).toBeFalsy();
    const object = S2SPResultSchema.parse(first.structuredContent);
    const entries = (await server.store.stats()).entries;
    // The table, and every page after the first.
    const pages = entries - 1;
    expect(pages).toBeGreaterThan(1);
    expect(pages).toBeLessThan(19);

    // Fill the quota with one-row results up to the limit: pages took their share.
    let held = entries;
    while (held < 20) {
      const one = await agent.call('get_table', ONE_ROW);
      expect(one.isError, textOf(one)).toBeFalsy();
      held++;
    }
    const over = await agent.call('get_table', ONE_ROW);
    expect(errorCode(over)).toBe('store_full');

    // Reading a page gives its slot back.
    const page = await agent.call('get_table', { cursor: object.next_cursor });
    expect(page.isError, textOf(page)).toBeFalsy();
    const after = await agent.call('get_table', ONE_ROW);
    expect(after.isError, textOf(after)).toBeFalsy();
  });

  it('refuses a result whose pages do not fit the quota, leaving no entry and no slot taken', async () => {
    const server = build({ maxEntriesPerClient: 3 });
    await using listening = await server.listen();
    await using agent = await connectMcpClient(listening.mcpUrl);
    const over = await agent.call('get_table', { abstract_domains: 'event,magnitude' });
    expect(errorCode(over)).toBe('store_full');
    expect((await server.store.stats()).entries).toBe(0);
    for (let i = 0; i < 3; i++) {
      const small = await agent.call('get_table', ONE_ROW);
      expect(small.isError, textOf(small)).toBeFalsy();
    }
  });
});
