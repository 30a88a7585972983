/**
 * Latitude/longitude checks and the `lat,lon` form NWS expects in `/points/{point}` and
 * `?point=`. NWS accepts at most four decimal places (about 11 m) and redirects or rejects
 * anything more precise, so points are rounded here, once, before any request or cache key.
 *
 * @module
 */

/** A point in decimal degrees. */
export interface Coordinates {
  readonly latitude: number;
  readonly longitude: number;
}

/** Rounds to the 4 decimal places NWS accepts; `-0` becomes `0`. */
export function roundCoordinate(value: number): number {
  const rounded = Math.round(value * 10_000) / 10_000;
  return rounded === 0 ? 0 : rounded;
}

/**
 * Checks and rounds a point.
 *
 * @param latitude - degrees north, -90 to 90
 * @param longitude - degrees east, -180 to 180
 * @throws Error saying which value is out of range and what the range is
 */
export function parseCoordinates(latitude: number, longitude: number): Coordinates {
  if (typeof latitude !== 'number' || !Number.isFinite(latitude) || Math.abs(latitude) > 90) {
    throw new Error(
      `latitude must be a number from -90 to 90 (degrees north), got ${String(latitude)}.`,
    );
  }
  if (typeof longitude !== 'number' || !Number.isFinite(longitude) || Math.abs(longitude) > 180) {
    throw new Error(
      `longitude must be a number from -180 to 180 (degrees east; the US is negative, e.g. -97.7431), got ${String(longitude)}.`,
    );
  }
  return { latitude: roundCoordinate(latitude), longitude: roundCoordinate(longitude) };
}

/** `30.2672,-97.7431`: the point as NWS writes it in paths and queries. */
export function formatPoint({ latitude, longitude }: Coordinates): string {
  return `${roundCoordinate(latitude)},${roundCoordinate(longitude)}`;
}

/** NWS's own pattern for a point: two decimal numbers separated by a comma. */
const POINT_PATTERN = /^(-?\d{1,3}(?:\.\d+)?),(-?\d{1,3}(?:\.\d+)?)$/;

/**
 * Reads a `lat,lon` string as NWS would (used by the replay server).
 *
 * @returns the point (not rounded), or `undefined` if the text is not a valid point
 */
export function parsePointText(text: string): Coordinates | undefined {
  const match = POINT_PATTERN.exec(text);
  if (!match) return undefined;
  const latitude = Number(match[1]);
  const longitude = Number(match[2]);
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined;
  return { latitude, longitude };
}
