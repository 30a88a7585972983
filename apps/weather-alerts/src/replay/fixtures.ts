/**
 * Loads recorded NWS responses from a folder, by file name:
 *
 * - `alerts-*.json` — `/alerts/active` feature collections. All of them are merged into one
 *   "national set" (newest recording first, each feature once by `id`), which the replay filters
 *   by area, zone or point as NWS would.
 * - `points-{lat}_{lon}-*.json` — `/points/{lat},{lon}`.
 * - `forecast-{WFO}-{x}_{y}-*.json` — `/gridpoints/{WFO}/{x},{y}/forecast`.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Row } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { formatPoint } from '../coordinates.js';

/** A recorded alert feature. */
export interface RecordedAlert {
  readonly id: string;
  readonly geometry: unknown;
  readonly properties: Row;
  /** `properties.geocode.UGC`: the zone and county codes the alert covers. */
  readonly ugc: readonly string[];
  /** The whole feature as recorded. */
  readonly feature: Row;
}

/** A recorded `/points` response. */
export interface RecordedPoint {
  /** The response body, byte for byte. */
  readonly body: string;
  /** UGC codes of the point's forecast zone, county and fire-weather zone. */
  readonly zones: readonly string[];
}

/** Everything a replay server serves. */
export interface NwsFixtures {
  /** The merged alerts, newest recording first. */
  readonly alerts: readonly RecordedAlert[];
  /** The `@context` of the newest alert recording (served on every alert collection). */
  readonly alertsContext: unknown;
  /** The newest `updated` among the alert recordings. */
  readonly alertsUpdated: string | undefined;
  /** Recorded points by `lat,lon` (rounded to 4 decimals). */
  readonly points: ReadonlyMap<string, RecordedPoint>;
  /** Recorded forecasts by `WFO/x,y`, byte for byte. */
  readonly forecasts: ReadonlyMap<string, string>;
  /** The file names read, for logs. */
  readonly files: readonly string[];
}

const POINTS_FILE = /^points-(-?\d+(?:\.\d+)?)_(-?\d+(?:\.\d+)?)(?:-.*)?\.json$/;
const FORECAST_FILE = /^forecast-([A-Za-z]{3})-(\d+)_(\d+)(?:-.*)?\.json$/;
const ALERTS_FILE = /^alerts-.*\.json$/;

/**
 * The `fixtures/` folder of this app. The app root is the nearest folder above this module with a
 * `package.json`, which holds both from `src/replay/` (tests) and from the bundled `dist/`.
 */
export function defaultFixturesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'fixtures');
    dir = dirname(dir);
  }
  throw new Error(
    'Cannot find the weather-alerts fixtures folder; pass fixturesDir (or set NWS_FIXTURES_DIR).',
  );
}

function readJson(dir: string, file: string): { text: string; json: Row } {
  const text = readFileSync(join(dir, file), 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`Fixture ${file} is not valid JSON.`, { cause: error });
  }
  if (!isPlainObject(json)) throw new Error(`Fixture ${file} is not a JSON object.`);
  return { text, json };
}

/** The last path segment of a zone URL (`…/zones/forecast/TXZ192` → `TXZ192`). */
function zoneCode(link: unknown): string | undefined {
  if (typeof link !== 'string') return undefined;
  const code = link.split('/').pop();
  return code && /^[A-Z]{2}[CZ]\d{3}$/.test(code) ? code : undefined;
}

/**
 * Reads every recorded response in `dir`.
 *
 * @throws Error naming the file, for a file that cannot be a recording of its kind
 */
export function loadNwsFixtures(dir: string = defaultFixturesDir()): NwsFixtures {
  if (!existsSync(dir)) throw new Error(`The fixtures folder ${dir} does not exist.`);
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort();
  const collections: { updated: string | undefined; context: unknown; features: unknown[] }[] = [];
  const points = new Map<string, RecordedPoint>();
  const forecasts = new Map<string, string>();

  for (const file of files) {
    const pointName = POINTS_FILE.exec(file);
    const forecastName = FORECAST_FILE.exec(file);
    if (pointName) {
      const { text, json } = readJson(dir, file);
      const properties = isPlainObject(json.properties) ? json.properties : {};
      const zones = [properties.forecastZone, properties.county, properties.fireWeatherZone]
        .map(zoneCode)
        .filter((code): code is string => code !== undefined);
      const key = formatPoint({
        latitude: Number(pointName[1]),
        longitude: Number(pointName[2]),
      });
      points.set(key, { body: text, zones: [...new Set(zones)] });
    } else if (forecastName) {
      const { text, json } = readJson(dir, file);
      if (!isPlainObject(json.properties) || !Array.isArray(json.properties.periods)) {
        throw new Error(`Fixture ${file} has no properties.periods; is it a forecast?`);
      }
      forecasts.set(
        `${forecastName[1]?.toUpperCase()}/${forecastName[2]},${forecastName[3]}`,
        text,
      );
    } else if (ALERTS_FILE.test(file)) {
      const { json } = readJson(dir, file);
      if (!Array.isArray(json.features)) {
        throw new Error(`Fixture ${file} has no features array; is it an alert list?`);
      }
      collections.push({
        updated: typeof json.updated === 'string' ? json.updated : undefined,
        context: json['@context'],
        features: json.features,
      });
    }
  }

  // Newest recording first, so that when two recordings hold the same alert, the newer copy
  // wins, and the first recording's order is kept as NWS sent it.
  const time = (updated: string | undefined) => (updated ? Date.parse(updated) || 0 : 0);
  collections.sort((a, b) => time(b.updated) - time(a.updated));
  const seen = new Set<string>();
  const alerts: RecordedAlert[] = [];
  for (const collection of collections) {
    for (const feature of collection.features) {
      if (!isPlainObject(feature) || !isPlainObject(feature.properties)) continue;
      const id =
        typeof feature.id === 'string' ? feature.id : JSON.stringify(feature.properties.id);
      if (seen.has(id)) continue;
      seen.add(id);
      const geocode = feature.properties.geocode;
      const ugc =
        isPlainObject(geocode) && Array.isArray(geocode.UGC)
          ? geocode.UGC.filter((code): code is string => typeof code === 'string')
          : [];
      alerts.push({
        id,
        geometry: feature.geometry ?? null,
        properties: feature.properties,
        ugc,
        feature,
      });
    }
  }

  return {
    alerts,
    alertsContext: collections[0]?.context,
    alertsUpdated: collections[0]?.updated,
    points,
    forecasts,
    files,
  };
}
