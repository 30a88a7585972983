import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFixturesDir } from './fixtures.js';
import { createNwsReplayApp } from './replay-app.js';

// In-process requests (no socket): Hono's app.request uses http://localhost as the origin.
const app = createNwsReplayApp();
const fixture = (file: string) => readFileSync(join(defaultFixturesDir(), file), 'utf8');

interface Collection {
  '@context': unknown;
  type: string;
  features: { id: string; properties: { event: string; geocode: { UGC: string[] } } }[];
  title: string;
  updated: string;
}

async function alerts(path: string): Promise<Collection> {
  const response = await app.request(path);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/geo+json');
  return (await response.json()) as Collection;
}

async function problem(path: string, status: number) {
  const response = await app.request(path);
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return (await response.json()) as {
    title: string;
    type: string;
    status: number;
    detail: string;
    parameterErrors?: { parameter: string; message: string }[];
  };
}

describe('NWS replay app', () => {
  it('filters the national set by area UGC codes, in the NWS collection shape', async () => {
    const tx = await alerts('/alerts/active?area=TX');
    expect(Object.keys(tx)).toEqual(['@context', 'type', 'features', 'title', 'updated']);
    expect(tx.type).toBe('FeatureCollection');
    expect(tx.title).toBe('Current watches, warnings, and advisories for Texas');
    expect(tx.updated).toBe('2026-09-13T23:22:47+00:00');
    expect(tx.features).toHaveLength(19);
    for (const feature of tx.features) {
      expect(feature.properties.geocode.UGC.some((code) => /^TX[CZ]/.test(code))).toBe(true);
    }
    expect((await alerts('/alerts/active?area=CA')).features).toHaveLength(10);
    expect((await alerts('/alerts/active?area=OK')).features).toHaveLength(7);
    expect(
      (await alerts('/alerts/active?area=NV')).features.map((f) => f.properties.event),
    ).toEqual(['Lake Wind Advisory']);
    expect((await alerts('/alerts/active?area=GM')).features).toEqual([]);
    expect((await alerts('/alerts/active?area=TX,CA')).features).toHaveLength(29);
    expect((await alerts('/alerts/active')).features).toHaveLength(29);
  });

  it('serves /alerts/active/area/{area} and zone filters', async () => {
    const byPath = await alerts('/alerts/active/area/TX');
    const byQuery = await alerts('/alerts/active?area=TX');
    expect(byPath.features.map((f) => f.id)).toEqual(byQuery.features.map((f) => f.id));
    expect((await alerts('/alerts/active/zone/TXZ192')).features).toHaveLength(2);
    expect(
      (await alerts('/alerts/active?zone=TXC311')).features.map((f) => f.properties.event),
    ).toEqual(['Flood Warning']);
  });

  it('matches a point by the recorded point zones and by polygon containment', async () => {
    const austin = await alerts('/alerts/active?point=30.2672,-97.7431');
    expect(austin.title).toBe('Current watches, warnings, and advisories for 30.2672 N, 97.7431 W');
    expect(austin.features.map((f) => f.properties.event)).toEqual([
      'Heat Advisory',
      'Heat Advisory',
    ]);
    // Inside the Flood Warning polygon (TXC311, recorded 2026-08-08); no recorded point here.
    const inPolygon = await alerts('/alerts/active?point=28.3,-98.45');
    expect(inPolygon.features.map((f) => f.properties.event)).toEqual(['Flood Warning']);
    expect((await alerts('/alerts/active?point=45,-100')).features).toEqual([]);
  });

  it('answers bad alert queries with NWS-style 400 problems', async () => {
    const lower = await problem('/alerts/active?area=tx', 400);
    expect(lower.title).toBe('Bad Request');
    expect(lower.parameterErrors?.[0]?.parameter).toBe('area');
    expect(lower.parameterErrors?.[0]?.message).toMatch(
      /^Does not have a value in the enumeration/,
    );
    expect((await problem('/alerts/active/area/UM', 400)).parameterErrors?.[0]?.parameter).toBe(
      'area',
    );
    expect(
      (await problem('/alerts/active?point=30.2672', 400)).parameterErrors?.[0]?.parameter,
    ).toBe('point');
    expect(
      (await problem('/alerts/active?area=TX&point=1,2', 400)).parameterErrors?.[0]?.message,
    ).toBe('Cannot be combined with area.');
    expect((await problem('/alerts/active?event=Heat', 400)).parameterErrors?.[0]?.parameter).toBe(
      'event',
    );
    expect((await problem('/alerts/active?zone=Travis', 400)).parameterErrors?.[0]?.parameter).toBe(
      'zone',
    );
  });

  it('serves the recorded point byte for byte, with links rewritten to its own base', async () => {
    const response = await app.request('/points/30.2672,-97.7431');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/geo+json');
    const body = await response.text();
    const recorded = fixture('points-30.2672_-97.7431-2026-09-12.json');
    expect(body).toBe(recorded.replaceAll('https://api.weather.gov', 'http://localhost'));
    expect(JSON.parse(body).properties.forecast).toBe(
      'http://localhost/gridpoints/EWX/156,91/forecast',
    );
  });

  it('redirects other spellings of a point to its 4-decimal address, as NWS does', async () => {
    const response = await app.request('/points/30.26720,-97.74312');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('http://localhost/points/30.2672,-97.7431');
  });

  it('answers an unrecorded point with the NWS InvalidPoint 404', async () => {
    const body = await problem('/points/51.5,-0.12', 404);
    expect(body.type).toBe('http://localhost/problems/InvalidPoint');
    expect(body.title).toBe('Data Unavailable For Requested Point');
    expect(body.detail).toMatch(/^Unable to provide data for requested point 51.5,-0.12/);
    expect(body.status).toBe(404);
  });

  it('serves the recorded forecast, and 404/400 problems for others', async () => {
    const response = await app.request('/gridpoints/EWX/156,91/forecast?units=us');
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toBe(
      fixture('forecast-EWX-156_91-2026-09-13.json').replaceAll(
        'https://api.weather.gov',
        'http://localhost',
      ),
    );
    expect(JSON.parse(body).properties.periods).toHaveLength(14);
    expect((await app.request('/gridpoints/ewx/156,91/forecast')).status).toBe(200);
    expect((await problem('/gridpoints/EWX/1,1/forecast', 404)).detail).toMatch(/EWX\/1,1/);
    expect(
      (await problem('/gridpoints/EWX/156,91/forecast?units=si', 400)).parameterErrors?.[0]
        ?.parameter,
    ).toBe('units');
  });

  it('answers unknown paths and methods with an NWS-style 404 problem', async () => {
    const body = await problem('/stations/KAUS/observations', 404);
    expect(body).toMatchObject({
      title: 'Not Found',
      type: 'http://localhost/problems/NotFound',
      status: 404,
    });
    expect(body.detail).toMatch(/^'\/stations\/KAUS\/observations' is not a valid resource path/);
    const post = await app.request('/alerts/active', { method: 'POST' });
    expect(post.status).toBe(404);
  });

  it('writes a configured public URL into links', async () => {
    const proxied = createNwsReplayApp({ publicUrl: 'https://nws.example.test/' });
    const body = await (await proxied.request('/points/30.2672,-97.7431')).json();
    expect(body.properties.forecast).toBe(
      'https://nws.example.test/gridpoints/EWX/156,91/forecast',
    );
  });
});
