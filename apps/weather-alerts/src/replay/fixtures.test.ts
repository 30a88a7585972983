import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFixturesDir, loadNwsFixtures } from './fixtures.js';

const dir = defaultFixturesDir();

describe('the recorded NWS fixtures', () => {
  it('are byte-identical to the recordings listed in SOURCES.md', () => {
    const sources = readFileSync(join(dir, 'SOURCES.md'), 'utf8');
    const rows = [
      ...sources.matchAll(/^\| `([^`]+\.json)` \|.*\| (\d+) \| `([0-9a-f]{64})` \|$/gm),
    ];
    expect(rows.map((row) => row[1]).sort()).toEqual(loadNwsFixtures(dir).files);
    for (const [, file = '', bytes, sha256] of rows) {
      const content = readFileSync(join(dir, file));
      expect(content.byteLength, file).toBe(Number(bytes));
      expect(createHash('sha256').update(content).digest('hex'), file).toBe(sha256);
    }
  });

  it('load as a national set of 29 alerts, newest recording first, plus one point and one forecast', () => {
    const fixtures = loadNwsFixtures(dir);
    expect(fixtures.alerts).toHaveLength(29);
    expect(new Set(fixtures.alerts.map((a) => a.id)).size).toBe(29);
    expect(fixtures.alertsUpdated).toBe('2026-09-13T23:22:47+00:00');
    const newest = JSON.parse(readFileSync(join(dir, 'alerts-active-TX-2026-09-13.json'), 'utf8'));
    expect(fixtures.alerts.slice(0, 12).map((a) => a.id)).toEqual(
      newest.features.map((f: { id: string }) => f.id),
    );
    expect(fixtures.alertsContext).toEqual(newest['@context']);
    expect(fixtures.alerts[0]?.ugc).toEqual(['TXZ229', 'TXZ230', 'TXZ240']);
    expect([...fixtures.points.keys()]).toEqual(['30.2672,-97.7431']);
    expect(fixtures.points.get('30.2672,-97.7431')?.zones).toEqual(['TXZ192', 'TXC453']);
    expect(fixtures.points.get('30.2672,-97.7431')?.body).toBe(
      readFileSync(join(dir, 'points-30.2672_-97.7431-2026-09-12.json'), 'utf8'),
    );
    expect([...fixtures.forecasts.keys()]).toEqual(['EWX/156,91']);
  });

  it('name the file when a recording is not what its name says', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'nws-fixtures-'));
    try {
      writeFileSync(join(scratch, 'alerts-broken.json'), '{"type":"FeatureCollection"');
      expect(() => loadNwsFixtures(scratch)).toThrow(
        'Fixture alerts-broken.json is not valid JSON.',
      );
      writeFileSync(join(scratch, 'alerts-broken.json'), '{"type":"Feature"}');
      expect(() => loadNwsFixtures(scratch)).toThrow(/alerts-broken.json has no features array/);
      rmSync(join(scratch, 'alerts-broken.json'));
      writeFileSync(join(scratch, 'forecast-EWX-1_2.json'), '{"properties":{}}');
      expect(() => loadNwsFixtures(scratch)).toThrow(
        /forecast-EWX-1_2.json has no properties.periods/,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    expect(() => loadNwsFixtures(join(scratch, 'missing'))).toThrow(/does not exist/);
  });
});
