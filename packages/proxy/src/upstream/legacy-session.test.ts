import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Request } from '../mcp-sdk.js';
import { openLegacySession } from './legacy-session.js';
import { createStartDeadline } from './start-deadline.js';
import { openTransport } from './upstream-target.js';

const RELAY = fileURLToPath(new URL('../../test/fixtures/relay-server.mjs', import.meta.url));

describe('openLegacySession', () => {
  it('opens a 2025-era session whose server’s requests to a client go to the relay', async () => {
    const relayed: string[] = [];
    const transport = openTransport(
      { kind: 'stdio', command: process.execPath, args: [RELAY] },
      () => {},
      { maxBytes: 1 << 20, onDropped: () => {} },
    );
    const opened = await openLegacySession(transport, createStartDeadline(20_000), {
      clientInfo: { name: 'legacy-session-test', version: '1.0.0' },
      onNotification: async () => {},
      onError: () => {},
      relay: async (request: Request) => {
        relayed.push(request.method);
        return { roots: [{ uri: 'file:///here', name: 'here' }] };
      },
    });
    try {
      expect(opened.era).toBe('legacy');
      expect(opened.capabilities.tools).toBeDefined();
      const result = (await opened.session.request(
        { method: 'tools/call', params: { name: 'roots', arguments: {} } },
        {},
      )) as { content: { text: string }[] };
      expect(relayed).toEqual(['roots/list']);
      expect(JSON.parse(result.content[0]?.text ?? '')).toMatchObject({
        ok: { roots: [{ uri: 'file:///here' }] },
      });
    } finally {
      await opened.session.close();
    }
  });
});
