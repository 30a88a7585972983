import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENT_CAPABILITIES_META_KEY, type Request, SERVER_INFO_META_KEY } from '../mcp-sdk.js';
import { probeEra } from './era-probe.js';
import { openModernSession } from './modern-session.js';
import { createStartDeadline } from './start-deadline.js';
import { openTransport, type StdioUpstream } from './upstream-target.js';

const MODERN_RELAY: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('../../test/fixtures/modern-relay-server.mjs', import.meta.url))],
};
const cap = { maxBytes: 1 << 20, onDropped: () => {} };

/** A 2026-07-28 session to the modern relay fixture; `relayed` records what it relayed. */
async function open(relayed: string[]) {
  const clientInfo = { name: 'modern-session-test', version: '1.0.0' };
  const deadline = createStartDeadline(20_000);
  const prior = await probeEra({
    clientInfo,
    open: () => openTransport(MODERN_RELAY, () => {}, cap, 2),
    stdio: true,
    deadline,
  });
  const transport = openTransport(MODERN_RELAY, () => {}, cap, 2);
  return openModernSession(prior, transport, deadline, {
    clientInfo,
    onNotification: async () => {},
    onError: () => {},
    relay: async (request: Request) => {
      relayed.push(request.method);
      return { action: 'accept', content: { name: 'bridged' } };
    },
    requestTimeoutMs: 20_000,
    onListenFailed: () => {},
  });
}

const textOf = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0]?.text ?? '');

describe('openModernSession', () => {
  it('fulfils a 2025 client’s call round by round through the relay, without the hop’s _meta', async () => {
    const relayed: string[] = [];
    const opened = await open(relayed);
    try {
      expect(opened.era).toBe('modern');
      const result = (await opened.session.request(
        { method: 'tools/call', params: { name: 'elicit', arguments: {} } },
        {},
      )) as Record<string, unknown>;
      expect(relayed).toEqual(['elicitation/create']);
      expect(textOf(result)).toEqual({ ok: { action: 'accept', content: { name: 'bridged' } } });
      expect((result._meta as Record<string, unknown> | undefined)?.[SERVER_INFO_META_KEY]).toBe(
        undefined,
      );
    } finally {
      await opened.session.close();
    }
  });

  it('hands a 2026-07-28 client’s round back as it came, and sends its answers upstream', async () => {
    const relayed: string[] = [];
    const opened = await open(relayed);
    const envelope = { [CLIENT_CAPABILITIES_META_KEY]: { elicitation: {} } };
    try {
      const call = { method: 'tools/call', params: { name: 'elicit', arguments: {} } };
      const round = await opened.session.request(call, {}, { envelope });
      expect(round).toMatchObject({
        resultType: 'input_required',
        inputRequests: { asked: { method: 'elicitation/create' } },
      });
      const answer = { action: 'decline' };
      const done = await opened.session.request(
        call,
        {},
        {
          envelope,
          inputResponses: { asked: answer },
        },
      );
      expect(textOf(done)).toEqual({ ok: answer });
      expect(relayed).toEqual([]);
    } finally {
      await opened.session.close();
    }
  });

  it('answers logging/setLevel itself: that revision has no such request', async () => {
    const opened = await open([]);
    try {
      expect(
        await opened.session.request(
          { method: 'logging/setLevel', params: { level: 'debug' } },
          {},
        ),
      ).toEqual({});
    } finally {
      await opened.session.close();
    }
  });
});
