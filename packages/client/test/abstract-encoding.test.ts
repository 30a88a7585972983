// The host declares the encoding its model reads (PROTOCOL §7.5): withS2SP's `abstractEncoding`
// rides in `_meta` of every tool call to real loopback S2SP servers, over both SDK majors.
import { createMCPClient } from '@ai-sdk/mcp';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPClient } from '@mastra/mcp';
import { MCPServerStreamableHttp } from '@openai/agents';
import { PROTOCOL, S2SPError } from '@s2sp/core';
import { compactAbstractReading } from '@s2sp/core/advice';
import { createS2SPServer, silentLogger } from '@s2sp/server';
import { connectSdkClient, runTitle, SDK_CLIENT_RUNS, type SdkClientRun } from '@s2sp/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import * as aiSdk from '../src/ai-sdk.js';
import * as claudeAgentSdk from '../src/claude-agent-sdk.js';
import * as langchain from '../src/langchain.js';
import * as mastra from '../src/mastra.js';
import { withS2SP } from '../src/mcp-sdk.js';
import * as openaiAgents from '../src/openai-agents.js';
import { BODY_MARKER, expectedRows, startPipeline, TABLE } from './pipeline.js';

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};

/** A resource server (`get_alerts`) with the given default encoding, and the `_meta` it received. */
async function startResourceServer(abstractEncoding: 'json' | 'compact') {
  const server = createS2SPServer({
    name: 'alerts',
    version: '1',
    logger: silentLogger,
    abstractEncoding,
  });
  server.resourceTool('get_alerts', { description: 'Active alerts.' }, () => TABLE);
  const listening = await server.listen();
  return { url: listening.mcpUrl, [Symbol.asyncDispose]: () => server.close() };
}

/** The abstract of a result's text: compact when its first element is an array (§7.5). */
function abstractOf(result: Pick<Result, 'content'>): unknown[] {
  const text = JSON.parse(result.content[0]?.text ?? '') as { abstract: unknown[] };
  return text.abstract;
}

/** What `fn` throws. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

/** Checks that `error` is the options error about `abstractEncoding`. */
function expectOptionError(error: unknown): void {
  expect(S2SPError.isInstance(error)).toBe(true);
  expect((error as S2SPError).code).toBe('invalid_config');
  expect((error as S2SPError).data).toEqual({ option: 'abstractEncoding' });
}

const ALERTS = { name: 'get_alerts', arguments: { abstract_domains: 'event,severity' } };

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/**
 * The `tools/call` requests every client in this process sends from now on, as JSON-RPC
 * messages without their `id`: the SDK transports post through the global `fetch`.
 */
function recordToolCalls(): Record<string, unknown>[] {
  const sent: Record<string, unknown>[] = [];
  globalThis.fetch = (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) {
      const { id: _id, ...message } = JSON.parse(init.body) as Record<string, unknown>;
      sent.push(message);
    }
    return realFetch(input, init);
  };
  return sent;
}

describe.each(SDK_CLIENT_RUNS.map((run) => [runTitle(run), run] as const))(
  'withS2SP abstractEncoding (%s)',
  (_title, run: SdkClientRun) => {
    const connect = async (url: string) => (await connectSdkClient(url, run)).client;

    it('gets compact text from a JSON-default server when it declares compact', async () => {
      await using server = await startResourceServer('json');
      const client = withS2SP(await connect(server.url), { abstractEncoding: 'compact' });
      try {
        const result = (await client.callTool(ALERTS)) as Result;
        const [header, ...rows] = abstractOf(result);
        expect(header).toEqual([PROTOCOL.rowId, 'event', 'severity']);
        // 12 rows, 4 distinct (event, severity) pairs: equal rows share one value row.
        expect(rows).toHaveLength(4);
        // structuredContent is the §2 object either way.
        expect((result.structuredContent?.abstract as unknown[] | undefined)?.[0]).toEqual({
          _row_id: 0,
          event: 'Flood Warning',
          severity: 'Severe',
        });
      } finally {
        await client.close();
      }
    });

    it('gets §2 JSON from a compact-default server when it declares json', async () => {
      await using server = await startResourceServer('compact');
      const declared = withS2SP(await connect(server.url), { abstractEncoding: 'json' });
      const plain = withS2SP(await connect(server.url));
      try {
        const abstract = abstractOf((await declared.callTool(ALERTS)) as Result);
        expect(abstract).toHaveLength(TABLE.length);
        expect(abstract[1]).toEqual({ _row_id: 1, event: 'Heat Advisory', severity: 'Minor' });
        // Declaring nothing gets the server's default, compact here.
        expect(Array.isArray(abstractOf((await plain.callTool(ALERTS)) as Result)[0])).toBe(true);
      } finally {
        await declared.close();
        await plain.close();
      }
    });

    it('hands compact rows to a consumer, and keeps sync bodies out as before', async () => {
      await using pipeline = await startPipeline();
      const options = { abstractEncoding: 'compact' } as const;
      const resource = withS2SP(await connect(pipeline.resource.mcpUrl), options);
      const consumer = withS2SP(await connect(pipeline.consumer.mcpUrl), options);
      try {
        const result = (await resource.callTool(ALERTS)) as Result;
        const [header, ...rows] = abstractOf(result) as [string[], ...unknown[][]];
        const { resource_url } = JSON.parse(result.content[0]?.text ?? '') as {
          resource_url: string;
        };
        // The model keeps the value row of severe floods, as it read it: ids [0, 6].
        const kept = rows.filter((row) => row[1] === 'Flood Warning' && row[2] === 'Severe');
        expect(kept).toEqual([[[0, 6], 'Flood Warning', 'Severe']]);
        const done = (await consumer.callTool({
          name: 'summarise_alerts',
          arguments: { abstract_data: JSON.stringify([header, ...kept]), resource_url },
        })) as Result;
        expect(done.content[0]?.text).toBe('summarised 2 alerts');
        expect(pipeline.received).toEqual([expectedRows([0, 6])]);

        // Sync results keep §2 JSON text, which the dispatcher rewrites: no body reaches the model.
        const sync = (await resource.callTool({
          ...ALERTS,
          arguments: { ...ALERTS.arguments, mode: 'sync' },
        })) as Result;
        expect(JSON.stringify(sync)).not.toContain(BODY_MARKER);
        expect(sync.structuredContent?.resource_url).toMatch(/^ddi:\/\//);
      } finally {
        await resource.close();
        await consumer.close();
      }
    });

    it('sends the same request as the bare client when it declares nothing', async () => {
      await using server = await startResourceServer('json');
      const bare = await connect(server.url);
      const wrapped = withS2SP(await connect(server.url));
      const declared = withS2SP(await connect(server.url), { abstractEncoding: 'compact' });
      try {
        const sent = recordToolCalls();
        await bare.callTool(ALERTS);
        await wrapped.callTool(ALERTS);
        await declared.callTool({ ...ALERTS, _meta: { progressToken: 7 } });
        expect(sent).toHaveLength(3);
        expect(sent[1]).toEqual(sent[0]);
        const metaOf = (message: Record<string, unknown> | undefined) =>
          (message?.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
        expect(metaOf(sent[0])?.[PROTOCOL.abstractEncodingMeta]).toBeUndefined();
        // The declaration joins the caller's own _meta entries.
        const meta = metaOf(sent[2]);
        expect(meta?.[PROTOCOL.abstractEncodingMeta]).toBe('compact');
        expect(meta?.progressToken).toBe(7);
      } finally {
        await bare.close();
        await wrapped.close();
        await declared.close();
      }
    });

    it('tells the model how to read compact rows in the resource tool’s description', async () => {
      await using server = await startResourceServer('json');
      const compact = withS2SP(await connect(server.url), { abstractEncoding: 'compact' });
      const json = withS2SP(await connect(server.url), { abstractEncoding: 'json' });
      try {
        const [tool] = (await compact.listTools()).tools;
        const [plain] = (await json.listTools()).tools;
        expect(tool?.description).toBe(`${plain?.description} ${compactAbstractReading}`);
        expect(plain?.description).not.toContain(compactAbstractReading);
      } finally {
        await compact.close();
        await json.close();
      }
    });

    it('refuses an encoding it does not know, naming the option', async () => {
      await using server = await startResourceServer('json');
      const client = await connect(server.url);
      try {
        const bad = { abstractEncoding: 'yaml' } as unknown as { abstractEncoding: 'json' };
        expectOptionError(thrownBy(() => withS2SP(client, bad)));
      } finally {
        await client.close();
      }
    });
  },
);

describe('the framework adapters declare the encoding', () => {
  it('AI SDK: compact text, and the reading in the resource tool’s description', async () => {
    await using server = await startResourceServer('json');
    const client = await createMCPClient({ transport: { type: 'http', url: server.url } });
    try {
      const bare = await client.tools();
      const tools = await aiSdk.withS2SP(client, { abstractEncoding: 'compact' }).tools();
      const tool = tools.get_alerts;
      expect(tool?.description).toBe(`${bare.get_alerts?.description} ${compactAbstractReading}`);
      const execute = tool?.execute as (input: unknown, options: unknown) => Promise<Result>;
      const result = await execute(ALERTS.arguments, { toolCallId: 'c1', messages: [] });
      expect(abstractOf(result)[0]).toEqual([PROTOCOL.rowId, 'event', 'severity']);
      // The bare client's tools still declare nothing.
      const plain = bare.get_alerts?.execute as typeof execute;
      const json = await plain(ALERTS.arguments, { toolCallId: 'c2', messages: [] });
      expect(abstractOf(json)).toHaveLength(TABLE.length);
    } finally {
      await client.close();
    }
  });

  it('OpenAI Agents: compact text through callTool and callToolResult, and the reading', async () => {
    await using server = await startResourceServer('json');
    const bare = new MCPServerStreamableHttp({ name: 'alerts', url: server.url });
    await bare.connect();
    try {
      const alerts = openaiAgents.withS2SP(bare, { abstractEncoding: 'compact' });
      const [tool] = await alerts.listTools();
      const [plain] = await bare.listTools();
      expect(tool?.description).toBe(`${plain?.description} ${compactAbstractReading}`);
      const content = (await alerts.callTool('get_alerts', ALERTS.arguments, {
        progressToken: 7,
      })) as Result['content'];
      expect(abstractOf({ content })[0]).toEqual([PROTOCOL.rowId, 'event', 'severity']);
      const full = (await alerts.callToolResult?.('get_alerts', ALERTS.arguments)) as Result;
      expect(abstractOf(full)[0]).toEqual([PROTOCOL.rowId, 'event', 'severity']);
      const json = (await bare.callTool('get_alerts', ALERTS.arguments)) as Result['content'];
      expect(abstractOf({ content: json })).toHaveLength(TABLE.length);
    } finally {
      await bare.close();
    }
  });

  it('Mastra (@mastra/mcp 2): compact text, and the reading in the description', async () => {
    await using server = await startResourceServer('json');
    const bare = new MCPClient({
      id: 's2sp-abstract-encoding',
      servers: { alerts: { url: new URL(server.url) } },
    });
    try {
      const tools = await mastra.withS2SP(bare, { abstractEncoding: 'compact' }).listTools();
      const plain = await bare.listTools();
      const tool = tools.alerts_get_alerts;
      const description = plain.alerts_get_alerts?.description;
      expect(tool?.description).toBe(`${description} ${compactAbstractReading}`);
      const execute = tool?.execute as (input: unknown, context?: unknown) => Promise<unknown>;
      const result = await execute(ALERTS.arguments, { _meta: { progressToken: 7 } });
      // Mastra returns the §2 structuredContent; what the model reads is the text, compact.
      expect((result as { total_rows?: number }).total_rows).toBe(TABLE.length);
      const toModel = tool?.toModelOutput as (output: unknown) => { type: string; value: string };
      const seen = toModel(result);
      expect(seen.type).toBe('text');
      expect(abstractOf({ content: [{ type: 'text', text: seen.value }] })[0]).toEqual([
        PROTOCOL.rowId,
        'event',
        'severity',
      ]);
      // A sync call's body reaches the model neither as the result nor as the text it is shown.
      const sync = await execute({ ...ALERTS.arguments, mode: 'sync' });
      expect(JSON.stringify(sync)).not.toContain(BODY_MARKER);
      expect(JSON.stringify(toModel(sync))).not.toContain(BODY_MARKER);
      // Without the option the tool has no toModelOutput of ours, and the server's default holds.
      expect(plain.alerts_get_alerts?.toModelOutput).toBeUndefined();
    } finally {
      await bare.disconnect();
    }
  });

  it('LangChain and the Claude Agent SDK refuse it: their hooks cannot set _meta', () => {
    const options = { abstractEncoding: 'compact' } as const;
    expectOptionError(thrownBy(() => langchain.withS2SP(MultiServerMCPClient, {}, options)));
    const query = () => ({ mcpServerStatus: async () => [] });
    expectOptionError(thrownBy(() => claudeAgentSdk.withS2SP(query, options)));
    const mcpServerStatus = async () => [];
    expectOptionError(thrownBy(() => claudeAgentSdk.s2spHooks({ ...options, mcpServerStatus })));
  });
});
