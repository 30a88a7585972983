import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { S2SPResultSchema } from '@s2sp/core';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));
const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('stdio transport', () => {
  it('serves resource and consumer tools over stdio, with the data plane on HTTP', async () => {
    if (!existsSync(dist))
      throw new Error('packages/server/dist is missing: run `pnpm build` first (pnpm test does).');
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [fixture],
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client({ name: 'stdio-agent', version: '1' });
    await client.connect(transport);
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
  });
});
