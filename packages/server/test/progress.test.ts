import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateToken, S2SPResultSchema } from '@s2sp/core';
import { connectMcpClient } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { createS2SPServer, silentLogger, toolProgress } from '../src/index.js';

/** A table of about 6 MiB: enough for several 1 MiB progress steps. */
const ROWS = 24_000;
const table = Array.from({ length: ROWS }, (_, i) => ({
  kind: i % 2 === 0 ? 'even' : 'odd',
  text: `row ${i} `.padEnd(240, 'x'),
}));

interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

async function resourceAndConsumer() {
  const resource = createS2SPServer({ name: 'res', version: '1', logger: silentLogger });
  resource.resourceTool('big', { description: 'A large table.' }, () => table);
  const resourceListening = await resource.listen();
  let handled = -1;
  const consumer = createS2SPServer({
    name: 'con',
    version: '1',
    logger: silentLogger,
    consumer: { allowedOrigins: [resourceListening.url], maxResponseBytes: 64 * 1024 * 1024 },
  });
  consumer.consumerTool('count', { description: 'Counts rows.' }, (rows) => {
    handled = rows.length;
    return { rows: rows.length };
  });
  const consumerListening = await consumer.listen();
  return {
    resourceUrl: resourceListening.mcpUrl,
    consumerUrl: consumerListening.mcpUrl,
    handled: () => handled,
    async [Symbol.asyncDispose]() {
      await consumer.close();
      await resource.close();
    },
  };
}

async function mintUrl(mcpUrl: string): Promise<string> {
  await using agent = await connectMcpClient(mcpUrl);
  const result = await agent.call('big', { abstract_domains: 'kind' });
  return S2SPResultSchema.parse(result.structuredContent).resource_url as string;
}

describe('MCP progress from a consumer tool', () => {
  it('reports bytes while the body arrives, increasing, the last with total equal to progress', async () => {
    await using servers = await resourceAndConsumer();
    const resourceUrl = await mintUrl(servers.resourceUrl);
    await using agent = await connectMcpClient(servers.consumerUrl);
    const seen: Progress[] = [];
    const result = await agent.client.callTool(
      { name: 'count', arguments: { resource_url: resourceUrl, filter: { kind: 'even' } } },
      undefined,
      { onprogress: (progress) => seen.push(progress) },
    );
    expect(result.isError).toBeFalsy();
    expect(servers.handled()).toBe(ROWS / 2);

    // Several steps of at least 1 MiB, then the final one.
    expect(seen.length).toBeGreaterThanOrEqual(4);
    const values = seen.map((p) => p.progress);
    for (let i = 1; i < values.length; i++)
      expect(values[i] as number).toBeGreaterThan(values[i - 1] as number);
    const last = seen.at(-1) as Progress;
    expect(last.total).toBe(last.progress);
    expect(last.progress).toBeGreaterThan(ROWS * 240);
    expect(seen.slice(0, -1).every((p) => p.total === undefined)).toBe(true);
    expect(last.message).toContain(`${ROWS} rows`);
  });

  it('sends none when the client gives no progressToken (a JSON answer, as before)', async () => {
    await using servers = await resourceAndConsumer();
    const resourceUrl = await mintUrl(servers.resourceUrl);
    await using agent = await connectMcpClient(servers.consumerUrl);
    const notifications: unknown[] = [];
    agent.client.fallbackNotificationHandler = async (n) => {
      notifications.push(n);
    };
    const result = await agent.call('count', {
      resource_url: resourceUrl,
      filter: { kind: 'odd' },
    });
    expect(result.isError).toBeFalsy();
    expect(servers.handled()).toBe(ROWS / 2);
    expect(notifications).toEqual([]);
  });
});

describe('toolProgress in a resource tool paging its upstream', () => {
  it('sends each page as progress, increasing (a repeat is dropped), with the total', async () => {
    const server = createS2SPServer({ name: 'pages', version: '1', logger: silentLogger });
    server.resourceTool('paged', { description: 'A table read in pages.' }, (_args, extra) => {
      const progress = toolProgress(extra);
      const rows: { kind: string; n: number }[] = [];
      for (let page = 0; page < 5; page++) {
        for (let i = 0; i < 100; i++) rows.push({ kind: i % 2 ? 'odd' : 'even', n: rows.length });
        progress(rows.length, 500, `${rows.length} rows fetched`);
        progress(rows.length, 500);
      }
      return rows;
    });
    await using listening = await server.listen();
    await using agent = await connectMcpClient(listening.mcpUrl);
    const seen: Progress[] = [];
    const result = await agent.client.callTool(
      { name: 'paged', arguments: { abstract_domains: 'kind' } },
      undefined,
      { onprogress: (progress) => seen.push(progress) },
    );
    expect(S2SPResultSchema.parse(result.structuredContent).total_rows).toBe(500);
    expect(seen.map((p) => [p.progress, p.total])).toEqual(
      [100, 200, 300, 400, 500].map((n) => [n, 500]),
    );
    await server.close();
  });
});

describe('cancelling a consumer call mid-fetch', () => {
  it('aborts the data-plane fetch: its socket closes and nothing is stored', async () => {
    // A data plane that sends the start of a body and then nothing: the fetch is mid-body when
    // the client cancels.
    let requests = 0;
    let socketClosed = false;
    const dataPlane: Server = createServer((req, res) => {
      requests++;
      req.socket.once('close', () => {
        socketClosed = true;
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"body":[{"_row_id":0,"kind":"even"}');
    });
    await new Promise<void>((resolve) => dataPlane.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(dataPlane.address() as AddressInfo).port}`;
    try {
      const consumer = createS2SPServer({
        name: 'con',
        version: '1',
        logger: silentLogger,
        consumer: { allowedOrigins: [origin] },
      });
      let handled = false;
      consumer.consumerTool('count', { description: 'Counts rows.' }, (rows) => {
        handled = true;
        return { rows: rows.length };
      });
      const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const mcp = await consumer.connect(serverSide);
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(clientSide);

      const controller = new AbortController();
      const pending = client.callTool(
        {
          name: 'count',
          arguments: { resource_url: `${origin}/s2sp/data/${generateToken()}`, row_ids: [0] },
        },
        undefined,
        { signal: controller.signal },
      );
      await expect.poll(() => requests).toBe(1);
      controller.abort();
      // The SDK client rejects a call it cancelled with its RequestTimeout code.
      await expect(pending).rejects.toMatchObject({ code: -32001 });
      await expect.poll(() => socketClosed).toBe(true);
      // Nothing left behind: no entry in the consumer's store (the pooled idle sockets of the
      // runtime's fetch are not the call's; the one that carried the request is closed above).
      expect((await consumer.store.stats()).entries).toBe(0);
      expect(handled).toBe(false);
      await client.close();
      await mcp.close();
      await consumer.close();
    } finally {
      dataPlane.closeAllConnections();
      await new Promise((resolve) => dataPlane.close(resolve));
    }
  });
});
