import { PROTOCOL, S2SPError } from '@s2sp/core';
import { connectMcpClient } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { createS2SPServer, silentLogger } from '../src/index.js';

/** A server with one resource and one consumer tool, listed by the official SDK client. */
async function listedMeta(options: { alwaysLoadConsumerTools?: unknown }) {
  const server = createS2SPServer({
    name: 'always-load',
    version: '1',
    logger: silentLogger,
    ...(options as { alwaysLoadConsumerTools?: boolean }),
  });
  server
    .resourceTool('get_alerts', { description: 'Alerts.' }, () => [{ id: 1 }])
    .consumerTool('summarise', { description: 'Summarise rows.' }, (rows) => `${rows.length}`);
  const listening = await server.listen();
  try {
    await using agent = await connectMcpClient(listening.mcpUrl);
    const { tools } = await agent.client.listTools();
    return Object.fromEntries(tools.map((tool) => [tool.name, tool._meta]));
  } finally {
    await server.close();
  }
}

describe('alwaysLoadConsumerTools', () => {
  it('lists the consumer tools, and only them, with the always-load _meta key', async () => {
    const meta = await listedMeta({ alwaysLoadConsumerTools: true });
    expect(meta.summarise?.[PROTOCOL.alwaysLoadMeta]).toBe(true);
    expect(meta.get_alerts?.[PROTOCOL.alwaysLoadMeta]).toBeUndefined();
  });

  it('is off by default: no tool carries the key', async () => {
    const meta = await listedMeta({});
    expect(meta.summarise?.[PROTOCOL.alwaysLoadMeta]).toBeUndefined();
    expect(meta.get_alerts?.[PROTOCOL.alwaysLoadMeta]).toBeUndefined();
  });

  it('refuses a value that is not a switch', async () => {
    const error = await listedMeta({ alwaysLoadConsumerTools: 'yes' }).catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
    expect(S2SPError.isInstance(error) && error.data).toMatchObject({
      option: 'alwaysLoadConsumerTools',
    });
  });
});
