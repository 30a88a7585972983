/**
 * The byte cap on one upstream answer (maxUpstreamResultBytes), with the real fixture upstream on
 * stdio and over Streamable HTTP: an answer over it fails only its own call, with
 * `payload_too_large`, while a call in flight at the same time and every later call are answered
 * and the upstream is never restarted.
 */
import { describe, expect, it } from 'vitest';
import { httpClient, type RunningProxy, startProxy, TABLE_SERVER } from './support.js';

const CAP = 64 * 1024;

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  _meta?: Record<string, unknown>;
};

async function exercise(edge: RunningProxy) {
  await using agent = await httpClient(edge.listener.mcpUrl);
  const call = async (name: string, args: Record<string, unknown>) =>
    (await agent.client.callTool({ name, arguments: args })) as ToolResult;
  // A call in flight while the oversized answer arrives must not be hurt by it.
  const slow = call('slow', { steps: 5, ms: 60 });
  const big = await call('big', { count: 5000 });
  const small = await call('big', { count: 10 });
  const during = await slow;
  return { big, small, during, restarts: edge.proxy.upstreamRestarts() };
}

function expectOnlyThatCallFailed(outcome: Awaited<ReturnType<typeof exercise>>) {
  expect(outcome.big.isError).toBe(true);
  expect(outcome.big._meta?.['s2sp/error-code']).toBe('payload_too_large');
  expect(outcome.big.content[0]?.text).toMatch(
    /answered with more than 65536 bytes\. Call the tool again with arguments that make it return less/,
  );
  expect(outcome.small.isError).toBeFalsy();
  expect(JSON.parse(outcome.small.content[0]?.text ?? '[]')).toHaveLength(10);
  expect(outcome.during.isError).toBeFalsy();
  expect(outcome.restarts).toBe(0);
}

describe('maxUpstreamResultBytes', () => {
  it('stdio: a line over the cap fails only its call; no restart', async () => {
    await using edge = await startProxy({
      upstream: TABLE_SERVER,
      maxUpstreamResultBytes: CAP,
      detectTables: false,
    });
    const outcome = await exercise(edge);
    expectOnlyThatCallFailed(outcome);
    expect(edge.logs.join('\n')).toContain('an answer over the byte cap was dropped');
    expect(edge.logs.join('\n')).not.toContain('restarting');
  });

  it('HTTP: a response over the cap fails only its call; no reconnect', async () => {
    // The fixture on Streamable HTTP: a proxy of its own, passing results through untouched.
    await using origin = await startProxy({ upstream: TABLE_SERVER, detectTables: false });
    await using edge = await startProxy({
      upstream: { kind: 'http', url: origin.listener.mcpUrl },
      maxUpstreamResultBytes: CAP,
      detectTables: false,
    });
    const outcome = await exercise(edge);
    expectOnlyThatCallFailed(outcome);
    expect(edge.logs.join('\n')).not.toContain('restarting');
  });

  it('a cap that holds the whole answer changes nothing (the control)', async () => {
    await using edge = await startProxy({ upstream: TABLE_SERVER, detectTables: false });
    await using agent = await httpClient(edge.listener.mcpUrl);
    const big = (await agent.client.callTool({
      name: 'big',
      arguments: { count: 5000 },
    })) as ToolResult;
    expect(big.isError).toBeFalsy();
    expect(JSON.parse(big.content[0]?.text ?? '[]')).toHaveLength(5000);
  });

  it('refuses a cap that is not a positive whole number of bytes', async () => {
    const { createS2SPProxy } = await import('../src/index.js');
    expect(() => createS2SPProxy({ upstream: TABLE_SERVER, maxUpstreamResultBytes: 0 })).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        data: expect.objectContaining({ option: 'maxUpstreamResultBytes' }),
      }),
    );
  });
});
