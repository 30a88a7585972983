/**
 * The recorded NWS alert sets the weather app replays, as its plain result holds them, for tests
 * that count tokens on real data.
 */

import { readFileSync } from 'node:fs';

/** The recorded `/alerts/active` responses in `apps/weather-alerts/fixtures`. */
export const NWS_ALERT_FILES = [
  'alerts-active-TX-2026-09-13.json',
  'alerts-active-CA-2025-09-09.json',
  'alerts-active-TX-2026-08-08.json',
] as const;

/** A recorded NWS file's alerts: each feature's properties without the JSON-LD `@` keys. */
export function nwsRows(name: string): Record<string, unknown>[] {
  const url = new URL(`../../../../../apps/weather-alerts/fixtures/${name}`, import.meta.url);
  const collection = JSON.parse(readFileSync(url, 'utf8')) as {
    features: { properties: Record<string, unknown> }[];
  };
  return collection.features.map((f) =>
    Object.fromEntries(Object.entries(f.properties).filter(([key]) => !key.startsWith('@'))),
  );
}
