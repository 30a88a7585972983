import type { ServerResponse } from 'node:http';
import { silentLogger } from '@s2sp/server';
import { connectMcpClient, startHttpServer, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { createWeatherServer } from '../src/weather-server.js';
import { fixtureText } from './helpers.js';

// What an agent sees when NWS misbehaves: the tools over MCP, against custom loopback upstreams.

const texas = fixtureText('alerts-active-TX-2026-09-13.json');

/** The stable S2SP code the server puts in a tool error's `_meta`. */
const codeOf = (result: object) =>
  (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'];

function reply(res: ServerResponse, status: number, body: string, type = 'application/geo+json') {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

async function weatherAgainst(upstreamUrl: string, nws: { timeoutMs?: number } = {}) {
  const server = createWeatherServer({
    logger: silentLogger,
    nws: { baseUrl: upstreamUrl, retryDelayMs: 10, ...nws },
  });
  const http = await server.listen();
  const agent = await connectMcpClient(http.mcpUrl);
  return {
    agent,
    async [Symbol.asyncDispose]() {
      await agent.close();
      await server.close();
    },
  };
}

describe('tools when NWS misbehaves', () => {
  it('a 500 followed by a 200 is invisible to the agent (retried)', async () => {
    let calls = 0;
    await using nws = await startHttpServer((_req, res) => {
      if (calls++ === 0) {
        reply(res, 500, '{"title":"Unexpected Problem","status":500}', 'application/problem+json');
      } else reply(res, 200, texas);
    });
    await using weather = await weatherAgainst(nws.url);
    const result = await weather.agent.call('get_alerts', { area: 'TX' });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(textOf(result))).toHaveLength(12);
    expect(nws.requests.map((r) => r.url)).toEqual([
      '/alerts/active?area=TX',
      '/alerts/active?area=TX',
    ]);
  });

  it('an NWS 404 problem for a point becomes a clear tool error', async () => {
    await using nws = await startHttpServer((_req, res) =>
      reply(
        res,
        404,
        JSON.stringify({
          title: 'Data Unavailable For Requested Point',
          type: 'https://api.weather.gov/problems/InvalidPoint',
          status: 404,
          detail: 'Unable to provide data for requested point 19.4326,-99.1332',
        }),
        'application/problem+json',
      ),
    );
    await using weather = await weatherAgainst(nws.url);
    const result = await weather.agent.call('get_forecast', {
      latitude: 19.4326,
      longitude: -99.1332,
      abstract_domains: 'name',
    });
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe('invalid_request');
    expect(textOf(result)).toBe(
      'NWS has no forecast for this point (19.4326,-99.1332): Data Unavailable For Requested Point: Unable to provide data for requested point 19.4326,-99.1332. NWS covers only US locations (states, territories and nearby waters); check the coordinates (US longitudes are negative, e.g. -97.7431).',
    );
  });

  it('an NWS 400 problem says what was wrong', async () => {
    await using nws = await startHttpServer((_req, res) =>
      reply(
        res,
        400,
        JSON.stringify({
          parameterErrors: [{ parameter: 'point', message: 'Point is outside the supported area' }],
          title: 'Bad Request',
          status: 400,
          detail: 'Bad Request',
        }),
        'application/problem+json',
      ),
    );
    await using weather = await weatherAgainst(nws.url);
    const result = await weather.agent.call('get_alerts_for_point', { latitude: 0, longitude: 0 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'NWS rejected /alerts/active?point=0,0 as a bad request (HTTP 400): Bad Request; point: Point is outside the supported area.',
    );
  });

  it('a silent upstream becomes a timeout error, not a hung call', async () => {
    await using nws = await startHttpServer(() => {
      // never answers
    });
    await using weather = await weatherAgainst(nws.url, { timeoutMs: 300 });
    const result = await weather.agent.call('get_alerts', {
      area: 'TX',
      abstract_domains: 'event',
    });
    expect(result.isError).toBe(true);
    expect(codeOf(result)).toBe('timeout');
    expect(textOf(result)).toBe(
      'NWS did not answer /alerts/active?area=TX within 0.3 s. It may be overloaded; try again in a minute.',
    );
  });

  it('a burst of identical calls makes one upstream request', async () => {
    await using nws = await startHttpServer((_req, res) => reply(res, 200, texas));
    await using weather = await weatherAgainst(nws.url);
    await weather.agent.call('get_alerts', { area: 'TX' });
    await weather.agent.call('get_alerts', { area: 'tx', abstract_domains: 'event' });
    await Promise.all([
      weather.agent.call('get_alerts', { area: 'TX', mode: 'sync', abstract_domains: 'event' }),
      weather.agent.call('get_alerts', { area: 'TX' }),
    ]);
    expect(nws.requests).toHaveLength(1);
    await weather.agent.call('get_alerts', { area: 'OK' });
    expect(nws.requests.map((r) => r.url)).toEqual([
      '/alerts/active?area=TX',
      '/alerts/active?area=OK',
    ]);
  });
});
