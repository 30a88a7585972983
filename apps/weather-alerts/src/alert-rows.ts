import type { Row } from '@s2sp/core';

/**
 * One alert as a table row: the feature's `properties` without the JSON-LD keys (`@id`, `@type`),
 * in NWS's order, with nested values (`geocode`, `parameters`, `affectedZones`) kept as JSON.
 * This is the Python reference server's row, so both implementations offer the same columns.
 *
 * `Object.fromEntries` defines own properties, so a `"__proto__"` key in upstream JSON stays a
 * column instead of becoming the row's prototype.
 *
 * @param properties - a feature's `properties`
 */
export function alertRow(properties: Row): Row {
  return Object.fromEntries(Object.entries(properties).filter(([key]) => !key.startsWith('@')));
}
