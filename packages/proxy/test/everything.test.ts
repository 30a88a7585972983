/**
 * @modelcontextprotocol/server-everything behaves the same through the proxy as directly: every
 * tool, resource, template, prompt and completion it offers, compared table-driven, plus
 * progress, logging and resource-update notifications. Downstream over Streamable HTTP; the
 * upstream on stdio here and on Streamable HTTP in the last test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { readS2SPCapability } from '@s2sp/core';
import { freePort } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { PROXY_INSTRUCTIONS } from '../src/advice.js';
import type { StdioUpstream } from '../src/index.js';
import { RELAYED_CAPABILITIES } from '../src/upstream/client-relay.js';
import { httpClient, startProxy, stdioClient, upstreamBin } from './support.js';

const EVERYTHING: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('@modelcontextprotocol/server-everything', 'dist/index.js'), 'stdio'],
  // The SDK's default environment on both sides, so get-env answers alike.
  env: {},
};

/** Wall-clock times and dates in resource texts differ between two calls; nothing else may. */
function clockless(text: string): string {
  return text
    .replace(/\d{1,2}:\d{2}:\d{2}(\s?[AP]M)?/g, 'TIME')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, 'DATE');
}

// The times server-everything writes into its answers, in text and inside base64 blobs ("a
// base64 blob created at 5:15:02 PM"): two calls a second apart differ there and nowhere else.
function normalize(value: unknown): unknown {
  return JSON.parse(clockless(JSON.stringify(value)), (key, field: unknown) =>
    key === 'blob' && typeof field === 'string'
      ? clockless(Buffer.from(field, 'base64').toString('utf8'))
      : field,
  );
}

async function both<T>(direct: Client, proxied: Client, run: (client: Client) => Promise<T>) {
  const [a, b] = await Promise.all([
    run(direct).catch((e: unknown) => ({ error: String(e) })),
    run(proxied).catch((e: unknown) => ({ error: String(e) })),
  ]);
  return { direct: normalize(a), proxied: normalize(b) };
}

const TOOL_CALLS: [string, Record<string, unknown>][] = [
  ['echo', { message: 'hello proxy' }],
  ['get-annotated-message', { messageType: 'error', includeImage: true }],
  ['get-annotated-message', { messageType: 'success', includeImage: false }],
  ['get-env', {}],
  ['get-resource-links', { count: 3 }],
  ['get-resource-reference', { resourceType: 'Text', resourceId: 2 }],
  ['get-resource-reference', { resourceType: 'Blob', resourceId: 3 }],
  ['get-structured-content', { location: 'Chicago' }],
  ['get-sum', { a: 2, b: 40 }],
  ['get-sum', { a: 'not a number' }],
  ['get-tiny-image', {}],
  [
    'gzip-file-as-resource',
    { name: 'hello.gz', data: 'data:text/plain;base64,aGVsbG8gcHJveHk=', outputType: 'resource' },
  ],
  ['trigger-long-running-operation', { duration: 0.2, steps: 2 }],
  // Needs task-based execution, which neither client asks for: the same error both ways.
  ['simulate-research-query', { topic: 'proxies' }],
  ['no-such-tool', {}],
];
// Covered by their own tests below (they start timers that notify).
const NOTIFYING_TOOLS = ['toggle-simulated-logging', 'toggle-subscriber-updates'];
// Listed for a client with sampling, elicitation or roots; relaying them is client-relay.test.ts's.
const RELAYED_TOOLS = [
  'get-roots-list',
  'trigger-elicitation-request',
  'trigger-sampling-request',
  'trigger-url-elicitation',
];

/**
 * A client of server-everything declaring what the proxy declares upstream (the capabilities it
 * relays, client-relay.ts), so that both list the same tools.
 */
async function directClient(): Promise<{ client: Client } & AsyncDisposable> {
  const client = new Client(
    { name: 'proxy-test-agent', version: '1.0.0' },
    { capabilities: RELAYED_CAPABILITIES },
  );
  await client.connect(
    new StdioClientTransport({
      command: EVERYTHING.command,
      args: [...(EVERYTHING.args ?? [])],
      stderr: 'pipe',
    }),
  );
  return { client, [Symbol.asyncDispose]: () => client.close() };
}

describe('@modelcontextprotocol/server-everything through the proxy', () => {
  it('offers the same tools, and every tool answers the same', async () => {
    await using running = await startProxy({ upstream: EVERYTHING });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await directClient();
    const listed = await both(direct.client, agent.client, (c) => c.listTools());
    expect(listed.proxied).toEqual(listed.direct);
    const names = (listed.direct as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names.length).toBeGreaterThanOrEqual(10);
    const covered = new Set([
      ...TOOL_CALLS.map(([name]) => name),
      ...NOTIFYING_TOOLS,
      ...RELAYED_TOOLS,
    ]);
    expect(names.filter((name) => !covered.has(name))).toEqual([]);
    for (const [name, args] of TOOL_CALLS) {
      const result = await both(direct.client, agent.client, (c) =>
        c.callTool({ name, arguments: args }),
      );
      expect(result.proxied, name).toEqual(result.direct);
    }
    const capabilities = { ...direct.client.getServerCapabilities() };
    delete capabilities.tasks;
    expect(agent.client.getServerCapabilities()).toEqual({
      ...capabilities,
      tools: { listChanged: true },
      // …plus S2SP itself, both ways (PROTOCOL §7.7), which clients read with readS2SPCapability.
      experimental: {
        ...capabilities.experimental,
        s2sp: { version: '0.2', dataPlanePath: '/s2sp/data/', roles: ['resource'] },
      },
      extensions: {
        'io.github.s2sp/s2sp': {
          version: '0.2',
          dataPlanePath: '/s2sp/data/',
          roles: ['resource'],
        },
      },
    });
    expect(readS2SPCapability(agent.client.getServerCapabilities())?.roles).toEqual(['resource']);
    // The upstream's instructions first and unchanged, then the proxy's labelled S2SP paragraph.
    const instructions = agent.client.getInstructions() ?? '';
    expect(instructions.startsWith(`${direct.client.getInstructions()}\n\n`)).toBe(true);
    expect(instructions).toContain(PROXY_INSTRUCTIONS.label);
    expect(agent.client.getServerVersion()).toEqual(direct.client.getServerVersion());
  });

  /** A read result with blobs decoded and times of day (`11:26:04 PM`) replaced. */
  function withoutClock(result: unknown): unknown {
    const clock = /\d{1,2}:\d{2}:\d{2}\s?[AP]M/g;
    return JSON.parse(JSON.stringify(result), (key, value) => {
      if (key === 'blob' && typeof value === 'string')
        return Buffer.from(value, 'base64').toString('utf8').replace(clock, '<time>');
      return typeof value === 'string' ? value.replace(clock, '<time>') : value;
    });
  }

  it('offers the same resources, templates, prompts and completions', async () => {
    await using running = await startProxy({ upstream: EVERYTHING });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(EVERYTHING);
    const resources = await both(direct.client, agent.client, (c) => c.listResources());
    expect(resources.proxied).toEqual(resources.direct);
    const uris = (resources.direct as { resources: { uri: string }[] }).resources.map((r) => r.uri);
    expect(uris.length).toBeGreaterThan(0);
    for (const uri of [
      ...uris,
      'demo://resource/dynamic/text/1',
      'demo://resource/dynamic/blob/2',
      'demo://nothing/here',
    ]) {
      const read = await both(direct.client, agent.client, (c) => c.readResource({ uri }));
      // The dynamic resources say when they were made, to the second: the two reads may fall in
      // different seconds, so the clock is the one thing compared loosely.
      expect(withoutClock(read.proxied), uri).toEqual(withoutClock(read.direct));
    }
    const templates = await both(direct.client, agent.client, (c) => c.listResourceTemplates());
    expect(templates.proxied).toEqual(templates.direct);

    const prompts = await both(direct.client, agent.client, (c) => c.listPrompts());
    expect(prompts.proxied).toEqual(prompts.direct);
    const PROMPT_CALLS: [string, Record<string, string>][] = [
      ['simple-prompt', {}],
      ['args-prompt', { city: 'Paris', state: 'Texas' }],
      ['args-prompt', {}],
      ['completable-prompt', { department: 'Engineering', name: 'Alice' }],
      ['resource-prompt', { resourceType: 'Text', resourceId: '3' }],
      ['resource-prompt', { resourceType: 'Nope', resourceId: '3' }],
    ];
    const promptNames = (prompts.direct as { prompts: { name: string }[] }).prompts.map(
      (p) => p.name,
    );
    expect(promptNames.filter((name) => !PROMPT_CALLS.some(([n]) => n === name))).toEqual([]);
    for (const [name, args] of PROMPT_CALLS) {
      const got = await both(direct.client, agent.client, (c) =>
        c.getPrompt({ name, arguments: args }),
      );
      expect(got.proxied, name).toEqual(got.direct);
    }
    for (const request of [
      {
        ref: { type: 'ref/prompt' as const, name: 'completable-prompt' },
        argument: { name: 'department', value: 'E' },
      },
      {
        ref: { type: 'ref/prompt' as const, name: 'completable-prompt' },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Engineering' } },
      },
      {
        ref: { type: 'ref/resource' as const, uri: 'demo://resource/dynamic/text/{resourceId}' },
        argument: { name: 'resourceId', value: '4' },
      },
    ]) {
      const completed = await both(direct.client, agent.client, (c) => c.complete(request));
      expect(completed.proxied).toEqual(completed.direct);
      expect(JSON.stringify(completed.direct)).toContain('values');
    }
  });

  it('relays progress notifications under the caller’s own token', async () => {
    await using running = await startProxy({ upstream: EVERYTHING });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(EVERYTHING);
    const progress = async (client: Client) => {
      const seen: unknown[] = [];
      await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
        undefined,
        {
          onprogress: (p) => seen.push(p),
        },
      );
      return seen;
    };
    const seen = await both(direct.client, agent.client, progress);
    // The SDK client drops a progress notification that it reads in the same tick as the
    // response, so the last step may be missing — on either side, depending on timing. Both
    // must be the steps in order, with at least the first two.
    const steps = [1, 2, 3].map((progress) => ({ progress, total: 3 }));
    for (const side of [seen.direct, seen.proxied] as unknown[][]) {
      expect(side.length).toBeGreaterThanOrEqual(2);
      expect(side).toEqual(steps.slice(0, side.length));
    }
  });

  it('relays logging (after logging/setLevel) and resource updates to the subscribed session', async () => {
    await using running = await startProxy({ upstream: EVERYTHING });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using bystander = await httpClient(running.listener.mcpUrl);
    const logs: unknown[] = [];
    const updates: string[] = [];
    const bystanderUpdates: string[] = [];
    agent.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    agent.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    bystander.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      bystanderUpdates.push(n.params.uri);
    });
    await agent.client.setLoggingLevel('debug');
    await agent.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    await expect.poll(() => logs.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(JSON.stringify(logs[0])).toMatch(/level/);

    const uri = 'demo://resource/static/document/architecture.md';
    await agent.client.subscribeResource({ uri });
    await agent.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    await expect.poll(() => updates, { timeout: 10_000 }).toContain(uri);
    expect(bystanderUpdates).toEqual([]);
    await agent.client.unsubscribeResource({ uri });
  });

  it('works the same with the upstream on Streamable HTTP (--upstream-url)', async () => {
    const port = await freePort();
    const child: ChildProcess = spawn(
      process.execPath,
      [EVERYTHING.args?.[0] ?? '', 'streamableHttp'],
      {
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('listening')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`server-everything exited ${code}`)));
      });
      await using running = await startProxy({
        upstream: { kind: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'x-test': '1' } },
      });
      await using agent = await httpClient(running.listener.mcpUrl);
      const echoed = await agent.client.callTool({
        name: 'echo',
        arguments: { message: 'over http' },
      });
      expect(echoed.content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
      const seen: unknown[] = [];
      await agent.client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
        undefined,
        {
          onprogress: (p) => seen.push(p),
        },
      );
      expect(seen[0]).toEqual({ progress: 1, total: 2 });
      const prompt = await agent.client.getPrompt({ name: 'simple-prompt' });
      expect(prompt.messages).toHaveLength(1);
    } finally {
      child.kill();
    }
  });
});
