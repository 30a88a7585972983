import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { fetchBody, S2SPResultSchema } from '@s2sp/core';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** A client over stdio of one protocol era, and what the server wrote to standard error. */
type StdioAgent = { client: Pick<Client, 'listTools' | 'callTool' | 'close'>; era: string };

async function legacyAgent(stderr: string[]): Promise<StdioAgent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'stdio-agent', version: '1' });
  await client.connect(transport);
  return { client, era: 'legacy' };
}

async function modernAgent(stderr: string[]): Promise<StdioAgent> {
  const transport = new StdioV2({ command: process.execPath, args: [fixture], stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new ClientV2(
    { name: 'stdio-agent', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  return {
    client: client as unknown as StdioAgent['client'],
    era: String(client.getProtocolEra()),
  };
}

describe('stdio transport', () => {
  it.each([
    ['a 2025 client (SDK v1)', legacyAgent, 'legacy'],
    ['a 2026-07-28 client (SDK v2, pinned)', modernAgent, 'modern'],
  ])(
    'serves resource and consumer tools over stdio to %s, with the data plane on HTTP',
    async (_name, connect, era) => {
      if (!existsSync(dist))
        throw new Error(
          'packages/server/dist is missing: run `pnpm build` first (pnpm test does).',
        );
      const stderr: string[] = [];
      const agent = await connect(stderr);
      const { client } = agent;
      expect(agent.era).toBe(era);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['get_rows', 'count']);

        const plain = (await client.callTool({ name: 'get_rows', arguments: {} })) as {
          content: { text: string }[];
        };
        expect(JSON.parse(plain.content[0]?.text ?? '')).toEqual([
          { name: 'alpha', secret: 'S-alpha' },
          { name: 'beta', secret: 'S-beta' },
        ]);

        const split = await client.callTool({
          name: 'get_rows',
          arguments: { abstract_domains: 'name' },
        });
        const s2sp = S2SPResultSchema.parse(split.structuredContent);
        expect(s2sp.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
        const counted = (await client.callTool({
          name: 'count',
          arguments: {
            abstract_data: JSON.stringify(s2sp.abstract.slice(1)),
            resource_url: s2sp.resource_url,
          },
        })) as { content: { text: string }[] };
        expect(counted.content[0]?.text).toBe('1:S-beta');
        // Logs went to standard error (standard output carries the protocol) and hold no token.
        expect(stderr.join('')).toMatch(/listening/);
        expect(stderr.join('')).not.toContain(s2sp.resource_url?.split('/').pop());
      } finally {
        await client.close();
      }
    },
  );
});

describe('stdio with createS2SP on the user’s own McpServer (examples/stdio.ts)', () => {
  it('runs the README example as written: tools over stdio, data plane at publicUrl', async () => {
    if (!existsSync(dist))
      throw new Error('packages/server/dist is missing: run `pnpm build` first (pnpm test does).');
    // The example is TypeScript; transpile it next to the fixtures so that its imports resolve
    // the way a user's would (the SDK from node_modules, @s2sp/server by self-reference).
    const source = readFileSync(new URL('../examples/stdio.ts', import.meta.url), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const script = fileURLToPath(
      new URL('./fixtures/stdio-example.generated.mjs', import.meta.url),
    );
    writeFileSync(script, outputText);
    const port = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [script],
      env: { ...getDefaultEnvironment(), DATA_PORT: String(port) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-agent', version: '1' });
    await client.connect(transport);
    try {
      const split = await client.callTool({
        name: 'list_notes',
        arguments: { abstract_domains: 'title' },
      });
      const s2sp = S2SPResultSchema.parse(split.structuredContent);
      expect(s2sp.resource_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/s2sp/data/`));
      const { body } = await fetchBody(s2sp.resource_url as string, {
        rowIds: [1],
        destinations: 'any',
      });
      expect(body).toEqual([{ _row_id: 1, id: 2, title: 'Ideas', body: 'S2SP for everything' }]);
    } finally {
      await client.close();
    }
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
