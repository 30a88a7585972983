import { S2SPResultSchema } from '@s2sp/core';
import type { ListeningServer, S2SPServer } from '@s2sp/server';
import { silentLogger } from '@s2sp/server';
import { connectMcpClient, type TestMcpClient, textOf } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NwsReplayServer, startNwsReplayServer } from '../src/replay/replay-server.js';
import { createWeatherServer } from '../src/weather-server.js';
import {
  expectedForecastRows,
  expectedTexasRows,
  fixtureFeatures,
  withoutJsonLd,
} from './helpers.js';

// The whole app over real loopback HTTP: the official MCP SDK client → weather-alerts → the NWS
// replay server serving the recorded responses.
let replay: NwsReplayServer;
let server: S2SPServer;
let listening: ListeningServer;
let agent: TestMcpClient;

beforeAll(async () => {
  replay = await startNwsReplayServer();
  server = createWeatherServer({ nws: { baseUrl: replay.url }, logger: silentLogger });
  listening = await server.listen();
  agent = await connectMcpClient(listening.mcpUrl);
});

afterAll(async () => {
  await agent?.close();
  await server?.close();
  await replay?.close();
});

const parse = (text: string) => JSON.parse(text) as Record<string, unknown>[];

async function redeem(resourceUrl: string, body: unknown = {}) {
  const response = await fetch(resourceUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('tools, resources and prompts', () => {
  it('lists the three resource tools with their columns, the cache resource and the prompt', async () => {
    const { tools } = await agent.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'get_alerts',
      'get_alerts_for_point',
      'get_forecast',
    ]);
    const [alerts, point, forecast] = tools;
    expect(alerts?.description).toContain(
      'Columns: id (urn:oid alert id), areaDesc (affected places',
    );
    expect(alerts?.description).toContain('event (alert type, e.g. Heat Advisory)');
    // The S2SP how-to is said once, in the instructions; the point tool names the alert columns.
    expect(agent.client.getInstructions()).toContain(
      'A resource_url works once and expires after 10 minutes.',
    );
    expect(alerts?.description).toContain('S2SP table (see server instructions).');
    expect(point?.description).toContain('Columns: as get_alerts.');
    expect(forecast?.description).toContain('shortForecast (e.g. "Mostly Sunny")');
    expect(Object.keys(alerts?.inputSchema.properties ?? {})).toEqual([
      'area',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);
    expect(alerts?.inputSchema.required).toEqual(['area']);
    expect(Object.keys(forecast?.inputSchema.properties ?? {})).toEqual([
      'latitude',
      'longitude',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);
    expect(alerts?.annotations).toMatchObject({ readOnlyHint: true });
    expect(alerts?.outputSchema).toBeUndefined();

    const { resources } = await agent.client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({
        uri: 'weather://cache',
        name: 'cache',
        mimeType: 'application/json',
      }),
    ]);
    const { prompts } = await agent.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['s2sp_workflow']);
    expect(agent.client.getInstructions()).toContain('abstract_domains');
  });
});

describe('get_alerts', () => {
  it('plain: one row per alert, the properties without @ keys (the TX national-set filter)', async () => {
    const result = await agent.call('get_alerts', { area: 'TX' });
    expect(result.isError).toBeUndefined();
    const rows = parse(textOf(result));
    const expected = expectedTexasRows(replay.url);
    expect(rows).toHaveLength(19);
    expect(rows).toEqual(expected);
    // Key order is NWS's, and nested values stay JSON.
    expect(Object.keys(rows[0] ?? {})).toEqual(Object.keys(expected[0] ?? {}));
    expect(Object.keys(rows[0] ?? {})[0]).toBe('id');
    expect(rows[0]?.geocode).toEqual({
      SAME: expect.any(Array),
      UGC: ['TXZ229', 'TXZ230', 'TXZ240'],
    });
    // Only the top-level JSON-LD keys go (nested values such as references[].@id stay, as in the
    // Python reference).
    for (const row of rows)
      expect(Object.keys(row).filter((key) => key.startsWith('@'))).toEqual([]);
    expect(result.structuredContent).toBeUndefined();
  });

  it('accepts any case and surrounding space', async () => {
    const rows = parse(textOf(await agent.call('get_alerts', { area: ' tx' })));
    expect(rows.map((row) => row.id)).toEqual(expectedTexasRows(replay.url).map((row) => row.id));
  });

  it('reads the 2025 schema too (CA, no "note" column)', async () => {
    const rows = parse(textOf(await agent.call('get_alerts', { area: 'ca' })));
    const expected = fixtureFeatures('alerts-active-CA-2025-09-09.json', replay.url).map((f) =>
      withoutJsonLd(f.properties),
    );
    expect(rows).toEqual(expected);
    expect(rows).toHaveLength(10);
    expect(rows.every((row) => !('note' in row))).toBe(true);
  });

  it('async: abstract columns only, the rest behind a single-use resource_url', async () => {
    const result = await agent.call('get_alerts', {
      area: 'TX',
      abstract_domains: 'event, severity',
    });
    const s2sp = S2SPResultSchema.parse(result.structuredContent);
    const expected = expectedTexasRows(replay.url);
    expect(s2sp.total_rows).toBe(19);
    expect(s2sp.abstract_domains).toEqual(['event', 'severity']);
    expect(s2sp.body_domains).toEqual(
      Object.keys(expected[0] ?? {}).filter((c) => c !== 'event' && c !== 'severity'),
    );
    expect(s2sp.body_domains).toHaveLength(28);
    expect(s2sp.abstract).toEqual(
      expected.map((row, i) => ({ _row_id: i, event: row.event, severity: row.severity })),
    );
    expect(s2sp.body).toBeUndefined();
    expect(s2sp.resource_url).toMatch(new RegExp(`^${listening.url}/s2sp/data/[A-Za-z0-9_-]{43}$`));
    // The control plane carries no body text.
    expect(textOf(result)).not.toContain(String(expected[0]?.description).slice(0, 40));

    // The consumer's fetch: two chosen rows, full.
    const resourceUrl = s2sp.resource_url ?? '';
    const first = await redeem(resourceUrl, { row_ids: [3, 0] });
    expect(first.status).toBe(200);
    expect(first.json.body).toEqual([
      { _row_id: 0, ...expected[0] },
      { _row_id: 3, ...expected[3] },
    ]);
    expect((await redeem(resourceUrl)).status).toBe(404);
  });

  it('sync: the body comes back inline, merging to the full rows', async () => {
    const s2sp = S2SPResultSchema.parse(
      (await agent.call('get_alerts', { area: 'TX', abstract_domains: ['event'], mode: 'sync' }))
        .structuredContent,
    );
    expect(s2sp.resource_url).toBeUndefined();
    expect(s2sp.body).toHaveLength(19);
    const merged = s2sp.abstract.map((row, i) => ({ ...s2sp.body?.[i], ...row }));
    const expected = expectedTexasRows(replay.url);
    expect(merged.map(({ _row_id, ...rest }) => rest)).toEqual(expected);
    expect(merged.map((row) => row._row_id)).toEqual(expected.map((_, i) => i));
  });

  it('rejects an unknown area, listing every valid code', async () => {
    const result = await agent.call('get_alerts', { area: 'XX' });
    expect(result.isError).toBe(true);
    expect((result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code']).toBe(
      'invalid_request',
    );
    const text = textOf(result);
    expect(text).toMatch(/^"XX" is not an NWS area code\./);
    expect(text).toContain('States and territories: AL, AK, AS, AR, AZ, CA');
    expect(text).toContain(
      'Marine areas: AM, AN, GM, LC, LE, LH, LM, LO, LS, PH, PK, PM, PS, PZ, SL.',
    );
    expect((await agent.call('get_alerts', { area: 'UM' })).isError).toBe(true);
  });

  it('rejects unknown abstract columns, listing the available ones', async () => {
    const result = await agent.call('get_alerts', { area: 'TX', abstract_domains: 'event,colour' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('colour');
    expect(textOf(result)).toContain('severity');
  });
});

describe('get_forecast', () => {
  it('plain: the recorded periods, following the point’s forecast link on the replay', async () => {
    const rows = parse(
      textOf(await agent.call('get_forecast', { latitude: 30.2672, longitude: -97.7431 })),
    );
    expect(rows).toEqual(expectedForecastRows(replay.url));
    expect(rows).toHaveLength(14);
    expect(rows[0]).toMatchObject({ number: 1, name: 'This Afternoon', temperature: 101 });
  });

  it('async and sync with abstract columns', async () => {
    const expected = expectedForecastRows(replay.url);
    const async = S2SPResultSchema.parse(
      (
        await agent.call('get_forecast', {
          latitude: 30.267_24,
          longitude: -97.743_06,
          abstract_domains: 'name,temperature',
        })
      ).structuredContent,
    );
    expect(async.abstract).toEqual(
      expected.map((row, i) => ({ _row_id: i, name: row.name, temperature: row.temperature })),
    );
    const fetched = await redeem(async.resource_url ?? '', {
      row_ids: [1],
      columns: ['detailedForecast'],
    });
    expect(fetched.json.body).toEqual([
      { _row_id: 1, detailedForecast: expected[1]?.detailedForecast },
    ]);

    const sync = S2SPResultSchema.parse(
      (
        await agent.call('get_forecast', {
          latitude: 30.2672,
          longitude: -97.7431,
          abstract_domains: 'shortForecast',
          mode: 'sync',
        })
      ).structuredContent,
    );
    expect(sync.body?.[13]).toEqual({ _row_id: 13, ...expected[13], shortForecast: undefined });
  });

  it('explains a point NWS has no forecast for', async () => {
    const result = await agent.call('get_forecast', { latitude: 51.5, longitude: -0.12 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^NWS has no forecast for this point \(51\.5,-0\.12\): /);
    expect(textOf(result)).toContain('Unable to provide data for requested point 51.5,-0.12');
    expect(textOf(result)).toContain('NWS covers only US locations');
  });

  it('rejects coordinates out of range before calling NWS', async () => {
    const result = await agent.call('get_forecast', { latitude: 95, longitude: -97 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/latitude/);
    const wrongType = await agent.call('get_forecast', { latitude: 'north', longitude: -97 });
    expect(wrongType.isError).toBe(true);
  });
});

describe('get_alerts_for_point', () => {
  it('returns the alerts for the point’s zones, rounding to 4 decimals', async () => {
    const rows = parse(
      textOf(
        await agent.call('get_alerts_for_point', { latitude: 30.267_24, longitude: -97.743_06 }),
      ),
    );
    const heat = expectedTexasRows(replay.url).filter((row) =>
      (row.geocode as { UGC: string[] }).UGC.includes('TXZ192'),
    );
    expect(heat).toHaveLength(2);
    expect(rows).toEqual(heat);
  });

  it('finds polygon alerts, with abstract columns in both modes', async () => {
    const args = { latitude: 28.3, longitude: -98.45, abstract_domains: 'event,areaDesc' };
    const async = S2SPResultSchema.parse(
      (await agent.call('get_alerts_for_point', args)).structuredContent,
    );
    expect(async.abstract).toEqual([
      { _row_id: 0, event: 'Flood Warning', areaDesc: 'McMullen, TX' },
    ]);
    const sync = S2SPResultSchema.parse(
      (await agent.call('get_alerts_for_point', { ...args, mode: 'sync' })).structuredContent,
    );
    expect(sync.body?.[0]).toMatchObject({ _row_id: 0, severity: 'Severe', status: 'Actual' });
  });

  it('returns no rows where nothing is active', async () => {
    expect(
      parse(textOf(await agent.call('get_alerts_for_point', { latitude: 45, longitude: -100 }))),
    ).toEqual([]);
  });

  it('rejects a longitude out of range', async () => {
    const result = await agent.call('get_alerts_for_point', { latitude: 30, longitude: 200 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/longitude/);
  });
});

describe('weather://cache and s2sp_workflow', () => {
  it('reports entries, rows and bytes on the data plane, never a token', async () => {
    const own = createWeatherServer({
      nws: { baseUrl: replay.url },
      logger: silentLogger,
      ttlSeconds: 120,
    });
    const http = await own.listen();
    try {
      await using client = await connectMcpClient(http.mcpUrl);
      const read = async () => {
        const [content] = (await client.client.readResource({ uri: 'weather://cache' })).contents;
        expect(content?.mimeType).toBe('application/json');
        return content && 'text' in content ? content.text : '';
      };
      expect(JSON.parse(await read())).toEqual({ entries: 0, rows: 0, bytes: 0, ttl_seconds: 120 });
      const s2sp = S2SPResultSchema.parse(
        (await client.call('get_alerts', { area: 'TX', abstract_domains: 'event' }))
          .structuredContent,
      );
      const text = await read();
      const status = JSON.parse(text);
      expect(status).toMatchObject({ entries: 1, rows: 19, ttl_seconds: 120 });
      expect(status.bytes).toBeGreaterThan(10_000);
      expect(text).not.toContain(s2sp.resource_url?.split('/').pop());
      await redeem(s2sp.resource_url ?? '');
      expect(JSON.parse(await read())).toMatchObject({ entries: 0, rows: 0, bytes: 0 });
    } finally {
      await own.close();
    }
  });

  it('serves the workflow prompt', async () => {
    const prompt = await agent.client.getPrompt({
      name: 's2sp_workflow',
      arguments: { area: 'CA' },
    });
    const message = prompt.messages[0];
    expect(message?.role).toBe('user');
    const text = message?.content.type === 'text' ? message.content.text : '';
    expect(text).toContain('get_alerts(area="CA", abstract_domains="event,severity")');
    expect(text).toContain('draw_chart(row_ids=');
  });
});
