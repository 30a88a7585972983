import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { connectSdkClient, expectedRevision, runTitle, SDK_CLIENT_RUNS } from '@s2sp/test-utils';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { S2SPDispatcher } from '../src/dispatcher.js';
import { withS2SP } from '../src/mcp-sdk.js';
import { BODY_MARKER, expectedRows, startPipeline, summariseFloods } from './pipeline.js';

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

describe.each(SDK_CLIENT_RUNS.map((run) => [runTitle(run), run] as const))(
  'withS2SP (%s)',
  (_title, run) => {
    const connect = async (url: string) => {
      const { client, revision } = await connectSdkClient(url, run);
      if (run.sdk === 2) expect(revision).toBe(expectedRevision(run.era));
      return client;
    };

    it('keeps sync bodies out of what the agent code sees, and hands them to the consumer', async () => {
      await using pipeline = await startPipeline();
      const dispatcher = new S2SPDispatcher();
      const resource = withS2SP(await connect(pipeline.resource.mcpUrl), { dispatcher });
      const consumer = withS2SP(await connect(pipeline.consumer.mcpUrl), { dispatcher });
      try {
        expect(resource).toBeInstanceOf(run.sdk === 1 ? ClientV1 : ClientV2);
        expect((await resource.listTools()).tools.map((t) => t.name)).toEqual(['get_alerts']);

        const seen = (await resource.callTool({
          name: 'get_alerts',
          arguments: { abstract_domains: 'event', mode: 'sync' },
        })) as Result;
        expect(JSON.stringify(seen)).not.toContain(BODY_MARKER);
        expect(dispatcher.pending).toBe(1);
        const { object, floods, done } = await summariseFloods(consumer, seen.content[0]?.text);
        expect(object.resource_url).toMatch(/^ddi:\/\//);
        expect(seen.structuredContent?.resource_url).toBe(object.resource_url);
        expect(done.content[0]?.text).toBe(`summarised ${floods.length} alerts`);
        expect(pipeline.received[0]).toEqual(expectedRows(floods.map((row) => row._row_id)));
        expect(dispatcher.pending).toBe(0);

        const again = (await consumer.callTool({
          name: 'summarise_alerts',
          arguments: { abstract_data: JSON.stringify(floods), resource_url: object.resource_url },
        })) as Result;
        expect(again.isError).toBe(true);
        expect(again.content[0]?.text).toMatch(/already used.*Call the resource tool again/);
        expect(pipeline.received).toHaveLength(1);
      } finally {
        await resource.close();
        await consumer.close();
      }
    });

    it('sends no buffered rows to a server whose S2SP capability lacks the consumer role', async () => {
      await using pipeline = await startPipeline();
      const dispatcher = new S2SPDispatcher();
      const resource = withS2SP(await connect(pipeline.resource.mcpUrl), { dispatcher });
      const consumer = withS2SP(await connect(pipeline.consumer.mcpUrl), { dispatcher });
      try {
        const seen = (await resource.callTool({
          name: 'get_alerts',
          arguments: { abstract_domains: 'event', mode: 'sync' },
        })) as Result;
        const handle = seen.structuredContent?.resource_url as string;
        // A prompt-injected model hands the handle to the resource server (roles: ["resource"]).
        const refused = (await resource.callTool({
          name: 'get_alerts',
          arguments: { abstract_domains: 'event', resource_url: handle },
        })) as Result & { _meta?: Record<string, unknown> };
        expect(refused.isError).toBe(true);
        expect(refused._meta?.['s2sp/error-code']).toBe('forbidden');
        expect(dispatcher.pending).toBe(1);

        // The handle still works where it belongs.
        const done = (await consumer.callTool({
          name: 'summarise_alerts',
          arguments: { resource_url: handle, abstract_data: '[]', body_data: null },
        })) as Result;
        expect(done.isError, done.content[0]?.text).toBeFalsy();
        expect(dispatcher.pending).toBe(0);
      } finally {
        await resource.close();
        await consumer.close();
      }
    });

    it('passes async results and plain results through untouched', async () => {
      await using pipeline = await startPipeline();
      const resource = withS2SP(await connect(pipeline.resource.mcpUrl));
      const consumer = withS2SP(await connect(pipeline.consumer.mcpUrl));
      try {
        const split = (await resource.callTool({
          name: 'get_alerts',
          arguments: { abstract_domains: 'event' },
        })) as Result;
        const url = split.structuredContent?.resource_url as string;
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
        const done = (await consumer.callTool({
          name: 'summarise_alerts',
          arguments: { abstract_data: '[{"_row_id":4}]', resource_url: url },
        })) as Result;
        expect(done.content[0]?.text).toBe('summarised 1 alerts');
        expect(pipeline.received[0]).toEqual(expectedRows([4]));
        const plain = (await resource.callTool({ name: 'get_alerts', arguments: {} })) as Result;
        expect(plain.content[0]?.text).toContain(BODY_MARKER);
      } finally {
        await resource.close();
        await consumer.close();
      }
    });
  },
);

describe('withS2SP across SDK majors', () => {
  it('takes the Client of either major structurally and hands back its own type', () => {
    const info = { name: 'agent', version: '1' };
    expectTypeOf(withS2SP(new ClientV1(info))).toEqualTypeOf<ClientV1>();
    expectTypeOf(withS2SP(new ClientV2(info))).toEqualTypeOf<ClientV2>();
    // Not a client: no callTool.
    // @ts-expect-error
    withS2SP({ getServerCapabilities: () => undefined });
  });
});
