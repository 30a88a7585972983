/**
 * `alwaysLoadTableTools`: the table tools listed with the `_meta` key by which a host that defers
 * tools behind a tool search (the Claude Agent SDK) loads them at once; the other tools as the
 * upstream lists them. Listed by the official SDK client through a real proxy.
 */
import { PROTOCOL, S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { httpClient, startProxy, TABLE_SERVER } from './support.js';

async function listedMeta(alwaysLoadTableTools?: boolean) {
  await using running = await startProxy({
    upstream: TABLE_SERVER,
    tableTools: [{ name: 'rows' }],
    ...(alwaysLoadTableTools !== undefined && { alwaysLoadTableTools }),
  });
  await using agent = await httpClient(running.listener.mcpUrl);
  const { tools } = await agent.client.listTools();
  return Object.fromEntries(tools.map((tool) => [tool.name, tool._meta]));
}

describe('alwaysLoadTableTools', () => {
  it('marks the configured and the declared table tools, and no other tool', async () => {
    const meta = await listedMeta(true);
    expect(meta.rows?.[PROTOCOL.alwaysLoadMeta]).toBe(true);
    expect(meta.declared?.[PROTOCOL.alwaysLoadMeta]).toBe(true);
    expect(meta.plain?.[PROTOCOL.alwaysLoadMeta]).toBeUndefined();
  });

  it('is off by default', async () => {
    const meta = await listedMeta();
    expect(meta.rows?.[PROTOCOL.alwaysLoadMeta]).toBeUndefined();
    expect(meta.declared?.[PROTOCOL.alwaysLoadMeta]).toBeUndefined();
  });

  it('refuses a value that is not a switch', () => {
    let error: unknown;
    try {
      createS2SPProxy({ upstream: TABLE_SERVER, alwaysLoadTableTools: 'yes' as never });
    } catch (thrown) {
      error = thrown;
    }
    expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
    expect(S2SPError.isInstance(error) && error.data).toMatchObject({
      option: 'alwaysLoadTableTools',
    });
  });
});
