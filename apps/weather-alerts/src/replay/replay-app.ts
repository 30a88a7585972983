/**
 * An offline stand-in for api.weather.gov that serves recorded responses at NWS's own paths, so
 * tests, CI and demos run without internet and without loading the real service.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { type Context, Hono } from 'hono';
import { areaName, isNwsAreaCode, NWS_AREA_CODES } from '../area-codes.js';
import { type Coordinates, formatPoint, parsePointText } from '../coordinates.js';
import { loadNwsFixtures, type NwsFixtures, type RecordedAlert } from './fixtures.js';
import { geometryContains } from './geometry.js';
import { problemResponse, type ReplayProblem } from './problem.js';

/** Options for {@link createNwsReplayApp}. */
export interface NwsReplayAppOptions {
  /** Folder of recordings (see `loadNwsFixtures`). Default: this app's `fixtures/`. */
  readonly fixturesDir?: string;
  /** Recordings already loaded; takes precedence over `fixturesDir`. */
  readonly fixtures?: NwsFixtures;
  /**
   * The base written into served links in place of `https://api.weather.gov`. Default: the origin
   * each request was made to, so that `forecast` links lead back to this server.
   */
  readonly publicUrl?: string;
}

const GEO_JSON = 'application/geo+json';
/** The origin the recordings link to, replaced by the replay's own in everything served. */
const RECORDED_ORIGIN = 'https://api.weather.gov';
const SUPPORTED_QUERY = new Set(['area', 'point', 'zone']);
const ROUTES =
  'This replay server serves /alerts/active (?area=, ?point=, ?zone=), /alerts/active/area/{area}, /alerts/active/zone/{zone}, /points/{lat},{lon} and /gridpoints/{wfo}/{x},{y}/forecast.';

/** Which alerts a request asks for. */
type AlertFilter =
  | { readonly kind: 'all' }
  | { readonly kind: 'area'; readonly areas: readonly string[] }
  | { readonly kind: 'zone'; readonly zones: readonly string[] }
  | { readonly kind: 'point'; readonly point: Coordinates };

function hemisphere(value: number, positive: string, negative: string): string {
  return `${Math.abs(value)} ${value >= 0 ? positive : negative}`;
}

/**
 * Creates the replay app. Routes, like NWS:
 *
 * - `GET /alerts/active` with `area` (comma-separated area codes), `point` (`lat,lon`) or `zone`
 *   (UGC codes), or none (every recorded alert); `/alerts/active/area/{area}`,
 *   `/alerts/active/zone/{zone}`. An area matches alerts with a UGC code of that area (`TXZ…`,
 *   `TXC…`, marine `GMZ…`); a point matches alerts whose polygon contains it and, for a recorded
 *   point, alerts for its forecast zone, county or fire-weather zone.
 * - `GET /points/{lat},{lon}`: the recorded point; more than 4 decimals redirect (301) to the
 *   rounded point as NWS does; other points get NWS's 404 `InvalidPoint` problem.
 * - `GET /gridpoints/{wfo}/{x},{y}/forecast`: the recorded forecast.
 * - anything else: a 404 `application/problem+json`.
 *
 * Successful responses are `application/geo+json`, with every `https://api.weather.gov` in them
 * rewritten to this server's base.
 *
 * @param options - where the recordings are and which base to advertise
 * @throws Error if the recordings cannot be read
 */
export function createNwsReplayApp(options: NwsReplayAppOptions = {}): Hono {
  const fixtures = options.fixtures ?? loadNwsFixtures(options.fixturesDir);
  const publicUrl = options.publicUrl?.replace(/\/+$/, '');
  const app = new Hono();

  const baseOf = (c: Context) => publicUrl ?? new URL(c.req.url).origin;
  const rewrite = (c: Context, text: string) => text.replaceAll(RECORDED_ORIGIN, baseOf(c));
  const geoJson = (c: Context, text: string) =>
    c.body(rewrite(c, text), 200, { 'content-type': GEO_JSON, 'cache-control': 'max-age=30' });
  const problem = (c: Context, details: ReplayProblem) => problemResponse(baseOf(c), details);
  const badParameter = (c: Context, parameter: string, message: string) =>
    problem(c, {
      status: 400,
      type: 'BadRequest',
      title: 'Bad Request',
      detail: 'Bad Request',
      parameterErrors: [{ parameter, message }],
    });

  const matches = (alert: RecordedAlert, filter: AlertFilter): boolean => {
    switch (filter.kind) {
      case 'all':
        return true;
      case 'area':
        // UGC codes are area + C (county) or Z (zone) + three digits: TXZ192, TXC453, GMZ250.
        return alert.ugc.some((code) => filter.areas.includes(code.slice(0, 2)));
      case 'zone':
        return alert.ugc.some((code) => filter.zones.includes(code));
      case 'point': {
        const { latitude, longitude } = filter.point;
        if (geometryContains(alert.geometry, latitude, longitude)) return true;
        const zones = fixtures.points.get(formatPoint(filter.point))?.zones ?? [];
        return alert.ugc.some((code) => zones.includes(code));
      }
    }
  };

  const title = (filter: AlertFilter): string => {
    const prefix = 'Current watches, warnings, and advisories';
    switch (filter.kind) {
      case 'all':
        return prefix;
      case 'area':
        return `${prefix} for ${filter.areas.map((a) => areaName(a) ?? a).join(', ')}`;
      case 'zone':
        return `${prefix} for ${filter.zones.join(', ')}`;
      case 'point':
        return `${prefix} for ${hemisphere(filter.point.latitude, 'N', 'S')}, ${hemisphere(filter.point.longitude, 'E', 'W')}`;
    }
  };

  const alertCollection = (c: Context, filter: AlertFilter) => {
    const features: Row[] = fixtures.alerts
      .filter((alert) => matches(alert, filter))
      .map((alert) => alert.feature);
    const collection = {
      '@context': fixtures.alertsContext,
      type: 'FeatureCollection',
      features,
      title: title(filter),
      updated: fixtures.alertsUpdated ?? new Date().toISOString(),
    };
    // NWS pretty-prints with four spaces; so do the recordings.
    return geoJson(c, JSON.stringify(collection, null, 4));
  };

  const areaFilter = (c: Context, value: string) => {
    const areas = value.split(',');
    const unknown = areas.find((area) => !isNwsAreaCode(area));
    if (unknown !== undefined) {
      return badParameter(
        c,
        'area',
        `Does not have a value in the enumeration ${JSON.stringify(NWS_AREA_CODES)}`,
      );
    }
    return alertCollection(c, { kind: 'area', areas });
  };

  const zoneFilter = (c: Context, value: string) => {
    const zones = value.split(',');
    if (zones.some((zone) => !/^[A-Z]{2}[CZ]\d{3}$/.test(zone))) {
      return badParameter(c, 'zone', 'Does not match the UGC pattern (e.g. TXZ192 or TXC453)');
    }
    return alertCollection(c, { kind: 'zone', zones });
  };

  app.get('/alerts/active', (c) => {
    const query = c.req.queries();
    const unsupported = Object.keys(query).filter((name) => !SUPPORTED_QUERY.has(name));
    if (unsupported.length > 0) {
      return badParameter(
        c,
        unsupported[0] ?? '',
        `This replay server supports only the area, point and zone filters. ${ROUTES}`,
      );
    }
    const given = Object.keys(query);
    if (given.length > 1) {
      return badParameter(c, given[1] ?? '', `Cannot be combined with ${given[0]}.`);
    }
    const area = c.req.query('area');
    if (area !== undefined) return areaFilter(c, area);
    const zone = c.req.query('zone');
    if (zone !== undefined) return zoneFilter(c, zone);
    const pointText = c.req.query('point');
    if (pointText !== undefined) {
      const point = parsePointText(pointText);
      if (!point) {
        return badParameter(
          c,
          'point',
          'Does not match the pattern latitude,longitude (e.g. 30.2672,-97.7431)',
        );
      }
      return alertCollection(c, { kind: 'point', point });
    }
    return alertCollection(c, { kind: 'all' });
  });

  app.get('/alerts/active/area/:area', (c) => areaFilter(c, c.req.param('area')));
  app.get('/alerts/active/zone/:zone', (c) => zoneFilter(c, c.req.param('zone')));

  app.get('/points/:point', (c) => {
    const text = c.req.param('point');
    const point = parsePointText(text);
    if (!point) {
      return problem(c, {
        status: 404,
        type: 'NotFound',
        title: 'Not Found',
        detail: `'/points/${text}' is not a valid resource path`,
      });
    }
    const canonical = formatPoint(point);
    // NWS serves each point at one address (4 decimals, no trailing zeros) and redirects other
    // spellings of it there.
    if (text !== canonical) {
      return c.redirect(`${baseOf(c)}/points/${canonical}`, 301);
    }
    const recorded = fixtures.points.get(canonical);
    if (!recorded) {
      return problem(c, {
        status: 404,
        type: 'InvalidPoint',
        title: 'Data Unavailable For Requested Point',
        detail: `Unable to provide data for requested point ${canonical} (this replay server has recordings for: ${[...fixtures.points.keys()].join('; ') || 'no points'})`,
      });
    }
    return geoJson(c, recorded.body);
  });

  app.get('/gridpoints/:wfo/:xy/forecast', (c) => {
    const units = c.req.query('units');
    if (units !== undefined && units !== 'us') {
      return badParameter(
        c,
        'units',
        'This replay server has the recorded forecasts in us units only.',
      );
    }
    const key = `${c.req.param('wfo').toUpperCase()}/${c.req.param('xy')}`;
    const recorded = fixtures.forecasts.get(key);
    if (!recorded) {
      return problem(c, {
        status: 404,
        type: 'NotFound',
        title: 'Not Found',
        detail: `This replay server has no recorded forecast for gridpoint ${key} (recorded: ${[...fixtures.forecasts.keys()].join('; ') || 'none'}).`,
      });
    }
    return geoJson(c, recorded);
  });

  app.notFound((c) =>
    problem(c, {
      status: 404,
      type: 'NotFound',
      title: 'Not Found',
      detail: `'${new URL(c.req.url).pathname}' is not a valid resource path. ${ROUTES}`,
    }),
  );

  return app;
}
