import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The recorded NWS responses the weather app replays (its fixtures folder). */
export function nwsAlertFixtures(): { name: string; rows: Record<string, unknown>[] }[] {
  const files = [
    'alerts-active-TX-2026-09-13.json',
    'alerts-active-CA-2025-09-09.json',
    'alerts-active-TX-2026-08-08.json',
  ];
  return files.map((name) => {
    const url = new URL(`../../apps/weather-alerts/fixtures/${name}`, import.meta.url);
    const collection = JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as {
      features: { properties: Record<string, unknown> }[];
    };
    // The weather app's row: the feature's properties without the JSON-LD "@" keys.
    return {
      name,
      rows: collection.features.map((f) =>
        Object.fromEntries(Object.entries(f.properties).filter(([k]) => !k.startsWith('@'))),
      ),
    };
  });
}
