/**
 * Point-in-polygon for GeoJSON `Polygon` and `MultiPolygon` geometries, enough to answer
 * `/alerts/active?point=` from recorded alerts the way NWS does for storm-based (polygon) alerts.
 *
 * @module
 */

type Position = readonly number[];
type Ring = readonly Position[];

function isRing(value: unknown): value is Ring {
  return (
    Array.isArray(value) &&
    value.every(
      (p) =>
        Array.isArray(p) && p.length >= 2 && typeof p[0] === 'number' && typeof p[1] === 'number',
    )
  );
}

/** Even-odd ray casting; GeoJSON positions are `[longitude, latitude]`. */
function ringContains(ring: Ring, longitude: number, latitude: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi = 0, yi = 0] = ring[i] ?? [];
    const [xj = 0, yj = 0] = ring[j] ?? [];
    if (yi > latitude !== yj > latitude) {
      const crossing = ((xj - xi) * (latitude - yi)) / (yj - yi) + xi;
      if (longitude < crossing) inside = !inside;
    }
  }
  return inside;
}

/** A polygon's rings: the outer boundary first, then holes. */
function polygonContains(rings: unknown, longitude: number, latitude: number): boolean {
  if (!Array.isArray(rings) || rings.length === 0 || !rings.every(isRing)) return false;
  const [outer, ...holes] = rings as Ring[];
  if (!outer || !ringContains(outer, longitude, latitude)) return false;
  return !holes.some((hole) => ringContains(hole, longitude, latitude));
}

/**
 * True if a GeoJSON geometry (Polygon or MultiPolygon) contains the point. Anything else —
 * `null` (zone-based alerts), points, lines, malformed input — contains nothing.
 *
 * @param geometry - a feature's `geometry`
 * @param latitude - degrees north
 * @param longitude - degrees east
 */
export function geometryContains(geometry: unknown, latitude: number, longitude: number): boolean {
  if (typeof geometry !== 'object' || geometry === null) return false;
  const { type, coordinates } = geometry as { type?: unknown; coordinates?: unknown };
  if (type === 'Polygon') return polygonContains(coordinates, longitude, latitude);
  if (type === 'MultiPolygon' && Array.isArray(coordinates)) {
    return coordinates.some((polygon) => polygonContains(polygon, longitude, latitude));
  }
  return false;
}
