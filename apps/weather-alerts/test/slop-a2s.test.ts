import { silentLogger } from '@s2sp/server';
import { verifyCapability } from '@s2sp/server/a2s';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startNwsReplayServer } from '../src/replay/replay-server.js';
import { createWeatherServer } from '../src/weather-server.js';

async function start(
  slop?: Parameters<typeof createWeatherServer>[0] extends infer O
    ? O extends { slop?: infer S }
      ? S
      : never
    : never,
) {
  const replay = await startNwsReplayServer({ port: 0 });
  const server = createWeatherServer({
    nws: { baseUrl: replay.url },
    logger: silentLogger,
    ...(slop && { slop }),
  });
  const listening = await server.listen();
  return {
    listening,
    async [Symbol.asyncDispose]() {
      await server.close();
      await replay.close();
    },
  };
}

describe('weather-alerts over SLOP', () => {
  it('lists its tools and answers a SLOP call with the S2SP split', async () => {
    await using s = await start({});
    const { tools } = (await (await fetch(`${s.listening.url}/tools`)).json()) as {
      tools: { id: string; parameters: Record<string, unknown> }[];
    };
    expect(tools.map((t) => t.id)).toEqual(['get_alerts', 'get_alerts_for_point', 'get_forecast']);
    expect(Object.keys(tools[0]?.parameters ?? {})).toEqual([
      'area',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);

    const response = await fetch(`${s.listening.url}/tools/get_alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ area: 'TX', abstract_domains: 'event,severity' }),
    });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as {
      result: {
        total_rows: number;
        abstract: { _row_id: number; event: string }[];
        resource_url: string;
      };
    };
    expect(result.total_rows).toBe(19);
    const heat = result.abstract.filter((row) => row.event === 'Heat Advisory');
    expect(heat).toHaveLength(13);
    const fetched = await fetch(result.resource_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ row_ids: [heat[0]?._row_id] }),
    });
    const body = (await fetched.json()) as { body: { event: string; description: string }[] };
    expect(body.body[0]?.event).toBe('Heat Advisory');
    expect(body.body[0]?.description).toMatch(/heat/i);
  });

  it('answers a bad area with SLOP 400 and the list of codes', async () => {
    await using s = await start({});
    const response = await fetch(`${s.listening.url}/tools/get_alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"area":"XX"}',
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/"XX" is not an NWS area code.*TX/);
  });

  it('serves no SLOP routes unless asked to', async () => {
    await using s = await start();
    expect((await fetch(`${s.listening.url}/tools`)).status).toBe(404);
  });
});

describe('weather-alerts A2S capabilities', () => {
  it('lists its pipelines and serves each as verifiable JSON and YAML', async () => {
    await using s = await start();
    const list = (await (
      await fetch(`${s.listening.url}/.well-known/a2s/capabilities`)
    ).json()) as { capabilities: { name: string; url: string; checksum: string }[] };
    expect(list.capabilities.map((c) => c.name)).toEqual([
      'GetWeatherAlerts',
      'GetWeatherAlertsForPoint',
      'GetForecast',
    ]);

    const doc = (await (await fetch(`${s.listening.url}${list.capabilities[0]?.url}`)).json()) as {
      checksum: string;
      domains: string[];
      execution: { steps: { format: string; definition: Record<string, unknown> }[] };
    };
    expect(await verifyCapability(doc)).toEqual({ valid: true });
    expect(doc.checksum).toBe(list.capabilities[0]?.checksum);
    expect(doc.domains).toEqual([new URL(s.listening.url).host]);
    expect(doc.execution.steps.map((step) => step.format)).toEqual(['Custom', 'OpenAPI']);
    expect(doc.execution.steps[0]?.definition).toMatchObject({
      protocol: 'MCP',
      endpoint: s.listening.mcpUrl,
      tool: 'get_alerts',
    });
    expect(Object.keys(doc.execution.steps[1]?.definition.paths as object)).toEqual([
      '/s2sp/data/{token}',
    ]);

    const yaml = await fetch(`${s.listening.url}/.well-known/a2s/capabilities/GetForecast`, {
      headers: { accept: 'application/yaml' },
    });
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
    const parsed = parseYaml(await yaml.text()) as Record<string, unknown>;
    expect(parsed.name).toBe('GetForecast');
    expect(await verifyCapability(parsed)).toEqual({ valid: true });
    expect(await verifyCapability({ ...parsed, description: 'tampered' })).toEqual({
      valid: false,
      reason: 'checksum does not match the content',
    });
  });
});
