// Figures 23.x: the proxy as a shared gateway — one client, by address or by bearer
// token, cannot lock others out of sessions or store room, and every text the model reads stays
// within the token budget.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { S2SPProxyOptions } from '@s2sp/proxy';
import { createS2SP, estimateTokens, silentLogger } from '@s2sp/server';
import { EdgeOptionsSchema } from '@s2sp/server/env';
import { createS2SPEdge } from '@s2sp/server/http';
import { describe, expect, it } from 'vitest';
import { rawCall, rawSession } from '../../packages/proxy/test/raw-mcp.js';
import { recordFigure } from '../src/figures.js';
import { startQuietProxy } from './support/proxy.js';

const UPSTREAM = {
  kind: 'stdio' as const,
  command: process.execPath,
  args: [
    fileURLToPath(new URL('../../packages/proxy/test/fixtures/table-server.mjs', import.meta.url)),
  ],
};
const TOKENS = ['gateway-client-one-0123456789', 'gateway-client-two-0123456789'];

const startProxy = (options: Partial<S2SPProxyOptions> = {}) =>
  startQuietProxy({ upstream: UPSTREAM, ...options });

type ToolResult = {
  isError?: boolean;
  content: { text: string }[];
  _meta?: Record<string, unknown>;
};
const textOf = (result: unknown) => (result as ToolResult).content[0]?.text ?? '';
const codeOf = (result: unknown) => (result as ToolResult)._meta?.['s2sp/error-code'];

describe('figure 23: the proxy as a gateway', () => {
  it('23.1 110 initializes from one client: others still served', async () => {
    await using edge = await startProxy();
    const url = edge.listener.mcpUrl;
    const opened: string[] = [];
    let answered = 0;
    for (let i = 0; i < 110; i++) {
      const session = await rawSession(url, { localAddress: '127.0.0.1' });
      if (session.status === 200) answered++;
      if (session.sessionId) opened.push(session.sessionId);
    }
    let live = 0;
    for (const id of opened) {
      const call = await rawCall(url, id, 'plain', {}, { localAddress: '127.0.0.1' });
      if (call.status === 200) live++;
    }
    const other = await rawSession(url, { localAddress: '127.0.0.2' });
    const served = other.sessionId
      ? await rawCall(url, other.sessionId, 'plain', {}, { localAddress: '127.0.0.2' })
      : { status: other.status };
    recordFigure({
      id: '23.1',
      title:
        'Proxy, default limits (100 sessions, 10 per client): one client (127.0.0.1) sends 110 initialize requests — answered 200 / its sessions still open afterwards (its idlest closed) / another client (127.0.0.2) initializes and calls a tool',
      value: `${answered}/110 / ${live} / ${other.status}, ${served.status}`,
      target: '110/110 / 10 / 200, 200',
      met: answered === 110 && live === 10 && other.status === 200 && served.status === 200,
    });
    expect([answered, live, other.status, served.status]).toEqual([110, 10, 200, 200]);
  });

  it('23.2 one client filling its bytes gets store_full; another still stores', async () => {
    const maxBytesPerClient = 1024 * 1024;
    await using edge = await startProxy({
      auth: { bearerTokens: TOKENS },
      tableTools: [{ name: 'big' }],
      maxBytesPerClient,
    });
    const connect = async (token: string) => {
      const client = new Client({ name: 'gateway', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(edge.listener.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const first = await connect(TOKENS[0] as string);
    const second = await connect(TOKENS[1] as string);
    let stored = 0;
    let refusedWith: unknown;
    for (let i = 0; i < 100; i++) {
      const result = await first.callTool({
        name: 'big',
        arguments: { count: 2000, abstract_domains: 'city' },
      });
      if ((result as ToolResult).isError) {
        refusedWith = codeOf(result);
        break;
      }
      stored++;
    }
    const other = await second.callTool({
      name: 'big',
      arguments: { count: 2000, abstract_domains: 'city' },
    });
    await first.close();
    await second.close();
    recordFigure({
      id: '23.2',
      title:
        'Proxy with maxBytesPerClient 1 MiB: one client (bearer token 1) caches 2,000-row results until refused — results stored / the refusal / another client (token 2) then stores one',
      value: `${stored} / ${String(refusedWith)} / ${(other as ToolResult).isError ? codeOf(other) : 'stored'}`,
      target: '≤ 9 / store_full / stored',
      met: stored <= 9 && refusedWith === 'store_full' && !(other as ToolResult).isError,
    });
    expect(refusedWith).toBe('store_full');
    expect((other as ToolResult).isError).toBeFalsy();
  });

  it('23.3 every model-facing text within the budget: 20,000 long column names, a 2 MiB cell, the unknown-column error', async () => {
    const budget = 8_000;
    const s2sp = createS2SP({
      logger: silentLogger,
      publicUrl: 'http://127.0.0.1:1',
      tokenBudget: budget,
    });
    const names = Array.from(
      { length: 20_000 },
      (_, i) => `column_${String(i).padStart(5, '0')}_${'x'.repeat(47)}`,
    );
    const wide = [Object.fromEntries(names.map((name, i) => [name, i]))];
    const page = await s2sp.resourceResult(wide, { abstract_domains: names[0] });
    const pageTokens = estimateTokens(textOf(page));
    const cell = await s2sp.resourceResult(
      [
        { id: 1, abstract: 'y'.repeat(2 * 1024 * 1024) },
        { id: 2, abstract: 'z' },
      ],
      { abstract_domains: 'abstract' },
    );
    const unknown = await s2sp.resourceResult(wide, { abstract_domains: 'nope' });
    const unknownTokens = estimateTokens(textOf(unknown));
    const labelled = textOf(unknown).includes('… and 19,980 more');
    await s2sp.close();
    recordFigure({
      id: '23.3',
      title: `Shared result builder, budget ${budget}: async first page of a table with 20,000 column names of 60 characters (before: body_domains alone ≈ 300,000 tokens) — tokens / an abstract column with one 2 MiB cell — answer / the unknown-column error on the wide table — tokens, labelled "… and 19,980 more"`,
      value: `${pageTokens} / ${String(codeOf(cell))} / ${unknownTokens}, ${labelled ? 'yes' : 'no'}`,
      target: `≤ ${budget} / payload_too_large / < 1,000, yes`,
      met:
        pageTokens <= budget &&
        codeOf(cell) === 'payload_too_large' &&
        unknownTokens < 1000 &&
        labelled,
    });
    expect(pageTokens).toBeLessThanOrEqual(budget);
    expect(codeOf(cell)).toBe('payload_too_large');
    expect(labelled).toBe(true);
  });

  it("23.4 the proxy's batch limit equals the servers'", async () => {
    await using edge = await startProxy();
    const server = EdgeOptionsSchema.shape.maxMcpBatchSize.parse(undefined);
    const standalone = createS2SPEdge({ logger: silentLogger }).options.maxMcpBatchSize;
    const batch = Array.from({ length: server + 1 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'ping',
    }));
    const answer = await fetch(edge.listener.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(batch),
    });
    recordFigure({
      id: '23.4',
      title:
        "JSON-RPC batch limit: the servers' default / createS2SPEdge's / the proxy's /mcp answer to a batch one over it",
      value: `${server} / ${standalone} / ${answer.status}`,
      target: `10 / 10 / 400`,
      met: server === 10 && standalone === 10 && answer.status === 400,
    });
    expect([server, standalone, answer.status]).toEqual([10, 10, 400]);
  });
});
