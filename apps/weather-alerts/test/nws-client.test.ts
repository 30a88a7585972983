import type { ServerResponse } from 'node:http';
import { codeAndDataOf, startHttpServer } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import {
  createNwsClient,
  DEFAULT_NWS_USER_AGENT,
  type NwsClientOptions,
} from '../src/nws-client.js';
import { NwsError } from '../src/nws-error.js';
import { fixtureText } from './helpers.js';

// The NWS client against small custom upstreams on loopback: real sockets, no mocked fetch.

type Reply = (res: ServerResponse, path: string) => void;

function send(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(status, {
      'content-type': status < 400 ? 'application/geo+json' : 'application/problem+json',
      ...headers,
    });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

const ok = send(200, { type: 'FeatureCollection', features: [] });

/** An upstream answering its n-th request with `replies[n]` (the last one repeats). */
async function upstream(...replies: Reply[]) {
  const headers: Record<string, string | string[] | undefined>[] = [];
  let count = 0;
  const server = await startHttpServer((req, res) => {
    headers.push(req.headers);
    const reply = replies[Math.min(count++, replies.length - 1)];
    reply?.(res, req.url ?? '');
  });
  return Object.assign(server, { headers });
}

/** Records the waits instead of sleeping, so retry tests assert on values, not on clocks. */
function recorder(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

function client(url: string, options: NwsClientOptions = {}) {
  return createNwsClient({ baseUrl: url, cacheTtlMs: 0, ...options });
}

async function failure(promise: Promise<unknown>): Promise<NwsError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof NwsError) return error;
    throw error;
  }
  throw new Error('expected an NwsError');
}

const problem404 = {
  correlationId: '1d2e',
  title: 'Data Unavailable For Requested Point',
  type: 'https://api.weather.gov/problems/InvalidPoint',
  status: 404,
  detail: 'Unable to provide data for requested point 51.5,-0.12',
  instance: 'https://api.weather.gov/requests/1d2e',
};

describe('NWS client: requests', () => {
  it('identifies itself and asks for GeoJSON', async () => {
    await using nws = await upstream(ok);
    await client(nws.url).getActiveAlerts({ area: 'TX' });
    await client(nws.url, { userAgent: 'my-alerts/1.0 (ops@example.com)' }).getActiveAlerts({
      point: { latitude: 30.267_24, longitude: -97.743_06 },
    });
    expect(nws.requests.map((r) => r.url)).toEqual([
      '/alerts/active?area=TX',
      '/alerts/active?point=30.2672,-97.7431',
    ]);
    expect(nws.headers[0]?.['user-agent']).toBe(DEFAULT_NWS_USER_AGENT);
    expect(nws.headers[0]?.accept).toBe('application/geo+json');
    expect(nws.headers[1]?.['user-agent']).toBe('my-alerts/1.0 (ops@example.com)');
  });

  it('keeps a base path prefix', async () => {
    await using nws = await upstream(ok);
    await client(`${nws.url}/nws/`).getActiveAlerts({ area: 'CA' });
    expect(nws.requests[0]?.url).toBe('/nws/alerts/active?area=CA');
  });

  it.each([
    [{ baseUrl: 'api.weather.gov' }, 'baseUrl'],
    [{ baseUrl: 'https://x/?q=1' }, 'baseUrl'],
    [{ userAgent: 'bad\nheader' }, 'userAgent'],
    [{ userAgent: '   ' }, 'userAgent'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ maxRetries: 1.5 }, 'maxRetries'],
    [{ cacheTtlMs: -1 }, 'cacheTtlMs'],
    [{ cacheMaxEntries: 0 }, 'cacheMaxEntries'],
    [{ maxResponseBytes: 0 }, 'maxResponseBytes'],
  ])('rejects %j, naming %s', (options, option) => {
    expect(codeAndDataOf(() => createNwsClient(options))).toEqual(['invalid_config', { option }]);
  });

  it('takes 0 where it turns a feature off', () => {
    expect(() => createNwsClient({ maxRetries: 0, cacheTtlMs: 0, retryDelayMs: 0 })).not.toThrow();
  });
});

describe('NWS client: retries', () => {
  it('retries a 500 and returns the next 200', async () => {
    await using nws = await upstream(send(500, { title: 'Unexpected Problem', status: 500 }), ok);
    const { waits, sleep } = recorder();
    expect(await client(nws.url, { sleep }).getActiveAlerts({ area: 'TX' })).toEqual([]);
    expect(nws.requests).toHaveLength(2);
    expect(waits).toEqual([500]);
  });

  it('backs off exponentially and gives up after 2 retries, with a clear error', async () => {
    await using nws = await upstream(
      send(503, { title: 'Service Unavailable', detail: 'The service is down', status: 503 }),
    );
    const { waits, sleep } = recorder();
    const error = await failure(
      client(nws.url, { sleep, retryDelayMs: 100 }).getActiveAlerts({ area: 'TX' }),
    );
    expect(nws.requests).toHaveLength(3);
    expect(waits).toEqual([100, 200]);
    expect(error.kind).toBe('http');
    expect(error.status).toBe(503);
    expect(error.message).toBe(
      'NWS failed to answer /alerts/active?area=TX (HTTP 503, 3 attempts): Service Unavailable: The service is down. The service may be degraded; try again in a few minutes.',
    );
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    await using nws = await upstream(
      send(429, { title: 'Too Many Requests', status: 429 }, { 'retry-after': '2' }),
      // A date already past means "retry now" (future dates: see retry-after.test.ts).
      send(503, '', { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }),
      ok,
    );
    const { waits, sleep } = recorder();
    await client(nws.url, { sleep }).getActiveAlerts({ area: 'TX' });
    expect(nws.requests).toHaveLength(3);
    expect(waits).toEqual([2000, 0]);
  });

  it('fails at once when Retry-After asks for longer than it will wait', async () => {
    await using nws = await upstream(send(429, '', { 'retry-after': '3600' }), ok);
    const { waits, sleep } = recorder();
    const error = await failure(client(nws.url, { sleep }).getActiveAlerts({ area: 'TX' }));
    expect(nws.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(error.status).toBe(429);
    expect(error.message).toBe(
      'NWS is busy (HTTP 429) and asked to wait 3600 s before retrying /alerts/active?area=TX. Try again later.',
    );
  });

  it('reports a 429 that outlasts the retries as rate limiting', async () => {
    await using nws = await upstream(send(429, { title: 'Too Many Requests', status: 429 }));
    const { sleep } = recorder();
    const error = await failure(client(nws.url, { sleep }).getActiveAlerts({ area: 'TX' }));
    expect(nws.requests).toHaveLength(3);
    expect(error.message).toMatch(/^NWS is rate-limiting this server \(HTTP 429\)/);
  });

  it('does not retry 4xx answers', async () => {
    await using nws = await upstream(send(404, problem404), ok);
    const { waits, sleep } = recorder();
    await failure(client(nws.url, { sleep }).getJson('/alerts/nothing'));
    expect(nws.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('retries a failed connection, then names the address', async () => {
    const closed = await startHttpServer(() => {});
    const url = closed.url;
    await closed.close();
    const { waits, sleep } = recorder();
    const error = await failure(client(url, { sleep }).getActiveAlerts({ area: 'TX' }));
    expect(error.kind).toBe('network');
    expect(waits).toEqual([500, 1000]);
    expect(error.message).toBe(
      `Could not reach the NWS API at ${url} (ECONNREFUSED). Check the network or NWS_BASE_URL, then try again.`,
    );
  });
});

describe('NWS client: errors', () => {
  it('turns a problem+json 404 for a point into a clear message', async () => {
    await using nws = await upstream(send(404, problem404));
    const error = await failure(
      client(nws.url).getForecastPeriods({ latitude: 51.5, longitude: -0.12 }),
    );
    expect(error.status).toBe(404);
    expect(error.problem?.type).toBe('https://api.weather.gov/problems/InvalidPoint');
    expect(error.message).toBe(
      'NWS has no forecast for this point (51.5,-0.12): Data Unavailable For Requested Point: Unable to provide data for requested point 51.5,-0.12. NWS covers only US locations (states, territories and nearby waters); check the coordinates (US longitudes are negative, e.g. -97.7431).',
    );
  });

  it('says what was wrong with a 400', async () => {
    await using nws = await upstream(
      send(400, {
        correlationId: 'a1',
        parameterErrors: [{ parameter: 'point', message: 'Does not match the regex pattern' }],
        title: 'Bad Request',
        type: 'https://api.weather.gov/problems/BadRequest',
        status: 400,
        detail: 'Bad Request',
      }),
    );
    const error = await failure(client(nws.url).getJson('/alerts/active?point=1'));
    expect(error.message).toBe(
      'NWS rejected /alerts/active?point=1 as a bad request (HTTP 400): Bad Request; point: Does not match the regex pattern.',
    );
  });

  it('explains a 403 (NWS blocks clients without a proper User-Agent)', async () => {
    await using nws = await upstream(send(403, '<html>Forbidden</html>'));
    const error = await failure(client(nws.url).getJson('/alerts/active'));
    expect(error.message).toMatch(
      /^NWS refused \/alerts\/active \(HTTP 403\): Forbidden\..*NWS_USER_AGENT/,
    );
  });

  it('times out a silent upstream without retrying', async () => {
    await using nws = await upstream(() => {
      // never answers
    });
    const { waits, sleep } = recorder();
    const error = await failure(
      client(nws.url, { timeoutMs: 200, sleep }).getActiveAlerts({ area: 'TX' }),
    );
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(
      'NWS did not answer /alerts/active?area=TX within 0.2 s. It may be overloaded; try again in a minute.',
    );
    expect(nws.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('rejects bodies that are not the expected JSON, or too large', async () => {
    await using nws = await upstream(
      send(200, '<html>maintenance</html>'),
      send(200, { type: 'FeatureCollection' }),
      send(200, { features: [{ id: 1 }] }),
      send(200, 'x'.repeat(5000)),
    );
    const nwsClient = client(nws.url, { maxResponseBytes: 1000 });
    expect((await failure(nwsClient.getJson('/a'))).message).toBe(
      'NWS answered /a with invalid JSON.',
    );
    expect((await failure(nwsClient.getActiveAlerts({ area: 'TX' }))).message).toContain(
      'without a "features" array',
    );
    expect((await failure(nwsClient.getActiveAlerts({ area: 'TX' }))).message).toContain(
      'alert 0 has no "properties" object',
    );
    expect((await failure(nwsClient.getJson('/big'))).kind).toBe('invalid_response');
  });
});

describe('NWS client: forecast links', () => {
  it('follows a canonical api.weather.gov forecast link on the configured base', async () => {
    // Serves the recordings unchanged, as a caching proxy in front of NWS would.
    await using nws = await startHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/geo+json' });
      res.end(
        fixtureText(
          req.url?.startsWith('/points/')
            ? 'points-30.2672_-97.7431-2026-09-12.json'
            : 'forecast-EWX-156_91-2026-09-13.json',
        ),
      );
    });
    const periods = await client(nws.url).getForecastPeriods({
      latitude: 30.2672,
      longitude: -97.7431,
    });
    expect(periods).toHaveLength(14);
    expect(periods[0]?.name).toBe('This Afternoon');
    expect(nws.requests.map((r) => r.url)).toEqual([
      '/points/30.2672,-97.7431',
      '/gridpoints/EWX/156,91/forecast',
    ]);
  });

  it('refuses to follow a link to another origin', async () => {
    await using nws = await upstream(
      send(200, { properties: { forecast: 'http://169.254.169.254/latest/meta-data' } }),
    );
    const error = await failure(
      client(nws.url).getForecastPeriods({ latitude: 30.2672, longitude: -97.7431 }),
    );
    expect(error.kind).toBe('forbidden_link');
    expect(error.message).toBe(
      `NWS returned a link to http://169.254.169.254, which is not the configured NWS API (${nws.url}); it was not followed.`,
    );
    expect(nws.requests).toHaveLength(1);
    await expect(client(nws.url).getJson('https://api.weather.gov.evil.test/x')).rejects.toThrow(
      /not the configured NWS API/,
    );
  });

  it('explains a point without a forecast link', async () => {
    await using nws = await upstream(send(200, { properties: { forecast: null } }));
    const error = await failure(
      client(nws.url).getForecastPeriods({ latitude: 28.1, longitude: -94.2 }),
    );
    expect(error.message).toMatch(/^NWS has no forecast link for 28.1,-94.2/);
  });
});

describe('NWS client: response cache', () => {
  it('makes one upstream request for two identical calls within the TTL', async () => {
    await using nws = await upstream(ok);
    const cached = createNwsClient({ baseUrl: nws.url });
    await cached.getActiveAlerts({ area: 'TX' });
    await cached.getActiveAlerts({ area: 'TX' });
    expect(nws.requests).toHaveLength(1);
    expect(cached.cachedResponses()).toBe(1);
    await cached.getActiveAlerts({ area: 'CA' });
    expect(nws.requests).toHaveLength(2);
  });

  it('coalesces concurrent identical requests into one', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await using nws = await startHttpServer(async (_req, res) => {
      await gate;
      send(200, { features: [] })(res, '');
    });
    const nwsClient = createNwsClient({ baseUrl: nws.url, cacheTtlMs: 0 });
    const calls = Array.from({ length: 5 }, () => nwsClient.getActiveAlerts({ area: 'TX' }));
    // Let the first request reach the upstream before it answers.
    while (nws.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    expect(await Promise.all(calls)).toEqual([[], [], [], [], []]);
    expect(nws.requests).toHaveLength(1);
  });

  it('hands every caller its own objects and does not cache failures', async () => {
    await using nws = await upstream(
      send(500, ''),
      send(200, { features: [{ properties: { a: 1 } }] }),
    );
    const { sleep } = recorder();
    const nwsClient = createNwsClient({ baseUrl: nws.url, maxRetries: 0, sleep });
    await failure(nwsClient.getActiveAlerts({ area: 'TX' }));
    const first = await nwsClient.getActiveAlerts({ area: 'TX' });
    (first[0]?.properties as { a: number }).a = 99;
    const second = await nwsClient.getActiveAlerts({ area: 'TX' });
    expect(second[0]?.properties).toEqual({ a: 1 });
    expect(nws.requests).toHaveLength(2);
  });

  it('can be turned off', async () => {
    await using nws = await upstream(ok);
    const uncached = createNwsClient({ baseUrl: nws.url, cacheTtlMs: 0 });
    await uncached.getActiveAlerts({ area: 'TX' });
    await uncached.getActiveAlerts({ area: 'TX' });
    expect(nws.requests).toHaveLength(2);
  });
});
