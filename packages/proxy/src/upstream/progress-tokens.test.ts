import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { mintProgressTokens } from './progress-tokens.js';

/** A server whose one tool reports progress on its own token, and sprays guessed tokens. */
async function connected() {
  const server = new Server({ name: 'progress', version: '1' }, { capabilities: { tools: {} } });
  const seenTokens: unknown[] = [];
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    seenTokens.push(token);
    for (const guess of [0, 1, 2, 3, '0', '1', '2', '3']) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: guess, progress: 99, message: 'guessed' },
      });
    }
    if (token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, message: 'own' },
      });
    }
    return { content: [] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let dropped = 0;
  const live = mintProgressTokens(clientSide, () => dropped++);
  const client = new Client({ name: 'proxy', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, server, seenTokens, dropped: () => dropped, live };
}

describe('mintProgressTokens', () => {
  it('sends a random token per request and hands back only progress for it', async () => {
    const { client, server, seenTokens, dropped, live } = await connected();
    const messages: (string | undefined)[] = [];
    for (let i = 0; i < 2; i++) {
      await client.callTool({ name: 'x' }, undefined, {
        onprogress: (progress) => messages.push(progress.message),
      });
    }
    expect(messages).toEqual(['own', 'own']);
    // 128 random bits per request, never the message id.
    expect(seenTokens).toHaveLength(2);
    for (const token of seenTokens) expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(seenTokens[0]).not.toBe(seenTokens[1]);
    expect(dropped()).toBe(16);
    // Answered requests forget their tokens.
    expect(live()).toBe(0);
    await client.close();
    await server.close();
  });

  it('asks for no progress for a request without a token, and drops all sent to it', async () => {
    const { client, server, seenTokens, dropped, live } = await connected();
    await client.callTool({ name: 'x' });
    expect(seenTokens).toEqual([undefined]);
    expect(dropped()).toBe(8);
    expect(live()).toBe(0);
    await client.close();
    await server.close();
  });
});
