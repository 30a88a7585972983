import { type RowWithId, S2SPResultSchema } from '@s2sp/core';
import { captureLines, connectMcpClient, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createConsoleLogger, createS2SPServer } from '../src/index.js';

/** A 30-column table whose body values are distinctive, so a leak is easy to spot. */
function wideTable(rowCount: number): Record<string, unknown>[] {
  return Array.from({ length: rowCount }, (_, r) => {
    const row: Record<string, unknown> = { kind: r % 3 === 0 ? 'storm' : 'calm', level: r % 5 };
    for (let c = 0; c < 28; c++)
      row[`body_${c}`] =
        c % 7 === 0 ? { nested: [r, c], note: `BODY-SECRET-${r}-${c}` } : `BODY-SECRET-${r}-${c}`;
    return row;
  });
}

async function startPipeline(logWrite?: (line: string) => void) {
  const logger = createConsoleLogger({ level: 'debug', write: logWrite ?? (() => {}) });
  const table = wideTable(40);
  const resource = createS2SPServer({ name: 'wide-resource', version: '1', logger });
  resource.resourceTool(
    'get_table',
    { description: 'A wide table.', inputSchema: { limit: z.number().int().optional() } },
    ({ limit }) => table.slice(0, limit ?? table.length),
  );
  const resourceHttp = await resource.listen();
  const consumer = createS2SPServer({
    name: 'wide-consumer',
    version: '1',
    logger,
    consumer: { allowedOrigins: [resourceHttp.url] },
  });
  const delivered: RowWithId[][] = [];
  consumer.consumerTool('process', { description: 'Process rows.' }, (rows) => {
    delivered.push(rows);
    return `processed ${rows.length} rows`;
  });
  const consumerHttp = await consumer.listen();
  return {
    table,
    delivered,
    resourceHttp,
    consumerHttp,
    async close() {
      await resource.close();
      await consumer.close();
    },
  };
}

describe('end to end over real sockets', () => {
  it('async: the agent filters the abstract, the consumer gets exactly the original full rows', async () => {
    const logs = captureLines();
    const pipeline = await startPipeline(logs.write);
    try {
      await using agentToResource = await connectMcpClient(pipeline.resourceHttp.mcpUrl);
      await using agentToConsumer = await connectMcpClient(pipeline.consumerHttp.mcpUrl);

      const result = await agentToResource.call('get_table', { abstract_domains: 'kind,level' });
      const text = textOf(result);
      const s2sp = S2SPResultSchema.parse(JSON.parse(text));
      expect(s2sp.body_domains).toHaveLength(28);
      expect(text).not.toContain('BODY-SECRET');

      // The "LLM" keeps the storms.
      const storms = s2sp.abstract.filter((row) => row.kind === 'storm');
      const done = await agentToConsumer.call('process', {
        abstract_data: JSON.stringify(storms),
        resource_url: s2sp.resource_url,
      });
      expect(textOf(done)).toBe(`processed ${storms.length} rows`);
      expect(JSON.stringify(done)).not.toContain('BODY-SECRET');

      expect(pipeline.delivered[0]).toEqual(
        storms.map((row) => ({ _row_id: row._row_id, ...pipeline.table[row._row_id] })),
      );
      for (const row of pipeline.delivered[0] ?? []) expect(Object.keys(row)).toHaveLength(31);

      // Nothing logged, at debug level, holds the token or the resource_url.
      const token = s2sp.resource_url?.split('/').pop() ?? '';
      expect(token).toHaveLength(43);
      expect(logs.lines.length).toBeGreaterThan(3);
      expect(logs.lines.some((line) => line.includes('data plane: redeemed'))).toBe(true);
      for (const line of logs.lines) {
        expect(line).not.toContain(token);
        expect(line).not.toContain(s2sp.resource_url);
      }
    } finally {
      await pipeline.close();
    }
  });

  it('sync: the body travels as body_data and the consumer gets the same full rows', async () => {
    const pipeline = await startPipeline();
    try {
      await using agentToResource = await connectMcpClient(pipeline.resourceHttp.mcpUrl);
      await using agentToConsumer = await connectMcpClient(pipeline.consumerHttp.mcpUrl);
      const s2sp = S2SPResultSchema.parse(
        (
          await agentToResource.call('get_table', {
            abstract_domains: 'kind',
            mode: 'sync',
            limit: 10,
          })
        ).structuredContent,
      );
      expect(s2sp.resource_url).toBeUndefined();
      const calm = s2sp.abstract.filter((row) => row.kind === 'calm');
      const keptIds = new Set(calm.map((row) => row._row_id));
      await agentToConsumer.call('process', {
        abstract_data: JSON.stringify(calm),
        body_data: JSON.stringify(s2sp.body?.filter((row) => keptIds.has(row._row_id))),
      });
      expect(pipeline.delivered[0]).toEqual(
        calm.map((row) => ({ _row_id: row._row_id, ...pipeline.table[row._row_id] })),
      );
    } finally {
      await pipeline.close();
    }
  });

  it('serves several concurrent agents, each token redeemed exactly once', async () => {
    const pipeline = await startPipeline();
    try {
      const agents = await Promise.all(
        Array.from({ length: 6 }, () => connectMcpClient(pipeline.resourceHttp.mcpUrl)),
      );
      const consumers = await Promise.all(
        Array.from({ length: 6 }, () => connectMcpClient(pipeline.consumerHttp.mcpUrl)),
      );
      const outcomes = await Promise.all(
        agents.map(async (agent, i) => {
          const s2sp = S2SPResultSchema.parse(
            (await agent.call('get_table', { abstract_domains: 'level', limit: 5 + i }))
              .structuredContent,
          );
          const consumerAgent = consumers[i]!;
          const first = await consumerAgent.call('process', {
            abstract_data: JSON.stringify(s2sp.abstract),
            resource_url: s2sp.resource_url,
          });
          const second = await consumerAgent.call('process', {
            abstract_data: JSON.stringify(s2sp.abstract),
            resource_url: s2sp.resource_url,
          });
          return { first: textOf(first), secondIsError: second.isError === true, rows: 5 + i };
        }),
      );
      for (const outcome of outcomes) {
        expect(outcome.first).toBe(`processed ${outcome.rows} rows`);
        expect(outcome.secondIsError).toBe(true);
      }
      await Promise.all([...agents, ...consumers].map((client) => client.close()));
    } finally {
      await pipeline.close();
    }
  });

  it('gives exactly one of 50 concurrent redemptions of one token a 200', async () => {
    const pipeline = await startPipeline();
    try {
      await using agent = await connectMcpClient(pipeline.resourceHttp.mcpUrl);
      const s2sp = S2SPResultSchema.parse(
        (await agent.call('get_table', { abstract_domains: 'kind' })).structuredContent,
      );
      const statuses = await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(s2sp.resource_url ?? '', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"row_ids":[0]}',
          }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 404)).toHaveLength(49);
    } finally {
      await pipeline.close();
    }
  });

  it('answers GET and DELETE on /mcp with 405 (stateless server)', async () => {
    const pipeline = await startPipeline();
    try {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(pipeline.resourceHttp.mcpUrl, {
          method,
          headers: { accept: 'text/event-stream' },
        });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
      }
    } finally {
      await pipeline.close();
    }
  });
});
