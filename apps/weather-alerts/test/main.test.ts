import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { S2SPResultSchema } from '@s2sp/core';
import { connectMcpClient, startRedis, textOf } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NwsReplayServer, startNwsReplayServer } from '../src/replay/replay-server.js';
import {
  assertBuilt,
  childEnv,
  distMain,
  distReplayMain,
  expectedTexasRows,
  startNode,
} from './helpers.js';

// The built entry points (`dist/main.js`, `dist/replay-main.js`) as users run them, driven by the
// official MCP SDK client, with NWS_BASE_URL at a replay server this test starts.

const READY = /weather-alerts: ready mcp=(\S+) data_plane=(\S+) nws=(\S+)/;

let replay: NwsReplayServer;

beforeAll(async () => {
  assertBuilt();
  replay = await startNwsReplayServer();
});

afterAll(async () => {
  await replay?.close();
});

async function redeem(resourceUrl: string, rowIds: number[]) {
  const response = await fetch(resourceUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ row_ids: rowIds }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { body: Record<string, unknown>[] }).body;
}

describe('dist/main.js', () => {
  it('keeps async bodies in Redis when REDIS_URL is set, shared by two replicas', async () => {
    await using redis = await startRedis();
    const env = childEnv({ PORT: '0', NWS_BASE_URL: replay.url, REDIS_URL: redis.url });
    const a = startNode(distMain, [], env);
    const b = startNode(distMain, [], env);
    try {
      const [, mcpA = ''] = await a.waitFor(READY);
      const [, mcpB = ''] = await b.waitFor(READY);
      await using agent = await connectMcpClient(mcpA);
      const s2sp = S2SPResultSchema.parse(
        (await agent.call('get_alerts', { area: 'TX', abstract_domains: 'event' }))
          .structuredContent,
      );
      // The token was minted by replica A; replica B's data plane redeems it from Redis.
      const atB = (s2sp.resource_url ?? '').replace(new URL(mcpA).origin, new URL(mcpB).origin);
      expect(atB).not.toBe(s2sp.resource_url);
      expect(await redeem(atB, [0])).toEqual([{ _row_id: 0, ...expectedTexasRows(replay.url)[0] }]);
      const again = await fetch(s2sp.resource_url ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(again.status).toBe(404);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('serves MCP over Streamable HTTP, printing the bound address for PORT=0', async () => {
    const app = startNode(distMain, [], childEnv({ PORT: '0', NWS_BASE_URL: replay.url }));
    try {
      const [, mcpUrl = '', dataPlane = '', nws] = await app.waitFor(READY);
      expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(mcpUrl).not.toContain(':0/');
      expect(dataPlane).toBe(mcpUrl.replace(/\/mcp$/, '/s2sp/data/'));
      expect(nws).toBe(replay.url);

      await using agent = await connectMcpClient(mcpUrl);
      const { tools } = await agent.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'get_alerts',
        'get_alerts_for_point',
        'get_forecast',
      ]);
      const s2sp = S2SPResultSchema.parse(
        (await agent.call('get_alerts', { area: 'tx', abstract_domains: 'event,severity' }))
          .structuredContent,
      );
      const expected = expectedTexasRows(replay.url);
      expect(s2sp.total_rows).toBe(19);
      expect(s2sp.resource_url?.startsWith(dataPlane)).toBe(true);
      const heat = s2sp.abstract
        .filter((row) => row.event === 'Heat Advisory')
        .map((r) => r._row_id);
      expect(heat).toHaveLength(13);
      expect(await redeem(s2sp.resource_url ?? '', heat)).toEqual(
        heat.map((id) => ({ _row_id: id, ...expected[id] })),
      );
      const forecast = JSON.parse(
        textOf(await agent.call('get_forecast', { latitude: 30.2672, longitude: -97.7431 })),
      );
      expect(forecast).toHaveLength(14);
      // Logs never carry the token.
      expect(app.stderr()).not.toContain(s2sp.resource_url?.split('/').pop());
    } finally {
      expect(await app.stop()).toBe(0);
    }
  });

  it('serves MCP over stdio with --stdio, the data plane on HTTP', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [distMain, '--stdio'],
      env: childEnv({ NWS_BASE_URL: replay.url, PORT: '0' }) as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(3);
      const point = (await client.callTool({
        name: 'get_alerts_for_point',
        arguments: { latitude: 30.2672, longitude: -97.7431, abstract_domains: 'event,senderName' },
      })) as { structuredContent?: unknown };
      const s2sp = S2SPResultSchema.parse(point.structuredContent);
      expect(s2sp.abstract).toEqual([
        { _row_id: 0, event: 'Heat Advisory', senderName: 'NWS Austin/San Antonio TX' },
        { _row_id: 1, event: 'Heat Advisory', senderName: 'NWS Austin/San Antonio TX' },
      ]);
      const body = await redeem(s2sp.resource_url ?? '', [1]);
      expect(body[0]?.id).toBe(
        'urn:oid:2.49.0.1.840.0.6e6bf321dc05d97a3fc0262ae03641b6b41e6b31.001.1',
      );
      const [cache] = (await client.readResource({ uri: 'weather://cache' })).contents;
      expect(JSON.parse(cache && 'text' in cache ? cache.text : '')).toMatchObject({
        entries: 0,
        rows: 0,
      });
      expect(stderr).toMatch(
        /weather-alerts: ready mcp=stdio data_plane=http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//,
      );
      // MCP is on stdio only: the HTTP port serves the data plane and nothing else.
      const origin = new URL(s2sp.resource_url ?? '').origin;
      const mcp = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(404);
    } finally {
      await client.close();
    }
  });

  it('answers offline from the recordings with --replay', async () => {
    const app = startNode(distMain, ['--replay'], childEnv({ PORT: '0' }));
    try {
      const [, mcpUrl = '', , nws = ''] = await app.waitFor(READY);
      expect(nws).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(app.stderr()).toContain('(replay)');
      await using agent = await connectMcpClient(mcpUrl);
      const rows = JSON.parse(textOf(await agent.call('get_alerts', { area: 'TX' })));
      expect(rows).toEqual(expectedTexasRows(nws));
    } finally {
      expect(await app.stop()).toBe(0);
    }
  });

  it.each([
    [{ PORT: 'abc' }, [], 'weather-alerts: PORT: must be a whole number from 0 to 65535.\n'],
    [
      { LOG_LEVEL: 'loud' },
      [],
      'weather-alerts: LOG_LEVEL: must be one of debug, info, warn, error, silent.\n',
    ],
    [
      {},
      ['--verbose'],
      'weather-alerts: --verbose: unknown option. The options are --stdio, --replay and --help.\n',
    ],
  ])('exits 1 naming the bad setting (%o %o)', async (env, args, message) => {
    const app = startNode(distMain, args, childEnv(env));
    expect(await app.exited()).toBe(1);
    expect(app.stderr()).toBe(message);
  });

  it('exits 1 at once, naming PORT, when the --stdio data-plane port is taken', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const port = (taken.address() as AddressInfo).port;
      const app = startNode(distMain, ['--stdio'], childEnv({ PORT: String(port) }));
      expect(await app.exited()).toBe(1);
      expect(app.stderr()).toContain(`port ${port} is already in use; pick another PORT`);
    } finally {
      taken.close();
    }
  });
});

describe('dist/replay-main.js', () => {
  it('serves the recordings on PORT', async () => {
    const server = startNode(distReplayMain, [], childEnv({ PORT: '0' }));
    try {
      const [, url = ''] = await server.waitFor(
        /nws-replay: ready url=(\S+) alerts=29 points=1 forecasts=1/,
      );
      const response = await fetch(`${url}/alerts/active?area=TX`);
      expect(response.headers.get('content-type')).toBe('application/geo+json');
      const collection = (await response.json()) as { features: unknown[] };
      expect(collection.features).toHaveLength(19);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
