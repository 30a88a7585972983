import { describe, expect, it } from 'vitest';
import { inferColumns, isIsoTimestamp } from './column-types.js';

describe('inferColumns', () => {
  it('infers numbers, booleans, timestamps with offsets and dates from the values', () => {
    const columns = inferColumns([
      {
        _row_id: 0,
        n: 3,
        x: 1.5,
        ok: true,
        onset: '2026-09-13T10:00:00-05:00',
        day: '2026-09-13',
        event: 'Heat Advisory',
        geo: { type: 'Point' },
      },
      {
        _row_id: 1,
        n: 4,
        x: 2,
        ok: false,
        onset: '2026-09-13T15:00:00.123Z',
        day: '2026-09-14',
        event: 'Flood Watch',
        geo: null,
        late: 'only here',
      },
    ]);
    expect(columns).toEqual([
      { name: '_row_id', type: 'BIGINT' },
      { name: 'n', type: 'BIGINT' },
      { name: 'x', type: 'DOUBLE' },
      { name: 'ok', type: 'BOOLEAN' },
      { name: 'onset', type: 'TIMESTAMPTZ' },
      { name: 'day', type: 'DATE' },
      { name: 'event', type: 'VARCHAR' },
      { name: 'geo', type: 'VARCHAR' },
      { name: 'late', type: 'VARCHAR' },
    ]);
  });

  it('falls back to VARCHAR for mixed, non-finite, zone-less or all-null columns', () => {
    const columns = inferColumns([
      { mixed: 1, big: 2 ** 60, local: '2026-09-13T10:00:00', none: null, bad: '2026-13-45' },
      { mixed: 'one', big: 1, local: '2026-09-13T11:00:00', none: null, bad: '2026-01-01' },
    ]);
    expect(columns.map((c) => c.type)).toEqual([
      'VARCHAR',
      'DOUBLE',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
    ]);
  });

  it('reads ISO timestamps only when they carry a zone and a real date', () => {
    expect(isIsoTimestamp('2026-09-13T10:00:00-05:00')).toBe(true);
    expect(isIsoTimestamp('2026-09-13T10:00:00+0500')).toBe(true);
    expect(isIsoTimestamp('2026-09-13T10:00:00')).toBe(false);
    expect(isIsoTimestamp('2026-02-30T10:00:00Z')).toBe(false);
    expect(isIsoTimestamp('2026-09-13 10:00:00Z')).toBe(true);
    expect(isIsoTimestamp('yesterday')).toBe(false);
  });
});
