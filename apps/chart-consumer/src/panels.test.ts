import { describe, expect, it } from 'vitest';
import {
  choosePanels,
  countPanel,
  MISSING,
  nonNumericRow,
  WEATHER_ALERT_PANELS,
} from './panels.js';

const alerts = [
  {
    _row_id: 0,
    event: 'Heat Advisory',
    severity: 'Moderate',
    urgency: 'Expected',
    certainty: 'Likely',
    senderName: 'NWS Austin',
    messageType: 'Alert',
    category: 'Met',
    areaDesc: 'Travis; Hays',
  },
  {
    _row_id: 1,
    event: 'Heat Advisory',
    severity: 'Moderate',
    urgency: 'Expected',
    certainty: 'Likely',
    senderName: 'NWS Austin',
    messageType: 'Update',
    category: 'Met',
    areaDesc: 'Travis',
  },
  {
    _row_id: 2,
    event: 'Flood Warning',
    severity: 'Severe',
    urgency: 'Immediate',
    certainty: 'Observed',
    senderName: 'NWS Houston',
    messageType: 'Alert',
    category: 'Met',
    areaDesc: 'Harris',
  },
];

describe('countPanel', () => {
  it('counts values, most frequent first, ties by value', () => {
    expect(countPanel(alerts, { title: 'Event', column: 'event' })).toEqual({
      title: 'Event',
      column: 'event',
      counts: [
        { value: 'Heat Advisory', count: 2 },
        { value: 'Flood Warning', count: 1 },
      ],
      distinct: 2,
    });
  });

  it('splits multi-valued cells and keeps the top values', () => {
    const panel = countPanel(alerts, { title: 'Area', column: 'areaDesc', split: ';', top: 2 });
    expect(panel.counts).toEqual([
      { value: 'Travis', count: 2 },
      { value: 'Harris', count: 1 },
    ]);
    expect(panel.distinct).toBe(3);
  });

  it('labels missing values and serialises non-strings', () => {
    const rows = [
      { _row_id: 0 },
      { _row_id: 1, x: null },
      { _row_id: 2, x: 3 },
      { _row_id: 3, x: { a: 1 } },
    ];
    expect(countPanel(rows, { title: 'X', column: 'x' }).counts).toEqual([
      { value: MISSING, count: 2 },
      // Ties sort by value with localeCompare, where punctuation comes before digits.
      { value: '{"a":1}', count: 1 },
      { value: '3', count: 1 },
    ]);
  });
});

describe('choosePanels', () => {
  it('draws the eight reference panels for NWS alerts', () => {
    expect(choosePanels(alerts)).toEqual(WEATHER_ALERT_PANELS);
    expect(WEATHER_ALERT_PANELS.map((p) => p.title)).toEqual([
      'Event Type',
      'Severity',
      'Urgency',
      'Certainty',
      'NWS Office',
      'Message Type',
      'Category',
      'Affected Area',
    ]);
  });

  it('draws only the alert panels whose columns are present', () => {
    const partial = alerts.map(({ _row_id, event, severity }) => ({ _row_id, event, severity }));
    expect(choosePanels(partial).map((p) => p.column)).toEqual(['event', 'severity']);
  });

  it('draws the group_by columns of any table', () => {
    expect(choosePanels(alerts, ['category', 'urgency']).map((p) => [p.title, p.column])).toEqual([
      ['Category', 'category'],
      ['Urgency', 'urgency'],
    ]);
  });

  it('picks categorical columns of other tables, skipping free text and floats', () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({
      _row_id: i,
      name: `unique ${i}`,
      kind: i % 2 ? 'a' : 'b',
      is_day: i % 3 === 0,
      temperature: 20.5 + i,
      windSpeed: `${i} mph`,
    }));
    expect(choosePanels(rows).map((p) => p.column)).toEqual(['kind', 'is_day']);
  });
});

describe('value columns', () => {
  const grouped = [
    { _row_id: 0, severity: 'Minor', n: 4 },
    { _row_id: 1, severity: 'Severe', n: 11 },
    { _row_id: 2, severity: 'Moderate', n: 7 },
    { _row_id: 3, severity: 'Minor', n: 1.5 },
    { _row_id: 4, severity: 'Unknown', n: null },
  ];

  it('sums the value column per value, highest first; null adds nothing', () => {
    expect(
      countPanel(grouped, { title: 'Severity', column: 'severity', valueColumn: 'n' }),
    ).toEqual({
      title: 'Severity',
      column: 'severity',
      valueColumn: 'n',
      counts: [
        { value: 'Severe', count: 11 },
        { value: 'Moderate', count: 7 },
        { value: 'Minor', count: 5.5 },
        { value: 'Unknown', count: 0 },
      ],
      distinct: 4,
    });
  });

  it('never makes the value column a panel of its own', () => {
    expect(choosePanels(grouped, undefined, 'n')).toEqual([
      { title: 'Severity', column: 'severity', top: 12, valueColumn: 'n' },
    ]);
    // Without a value column, small whole counts look categorical and get a panel.
    const whole = grouped.slice(0, 3);
    expect(choosePanels(whole).map((p) => p.column)).toEqual(['severity', 'n']);
    expect(choosePanels(whole, undefined, 'n').map((p) => p.column)).toEqual(['severity']);
  });

  it('finds the first row whose value is not a number', () => {
    expect(nonNumericRow(grouped, 'n')).toBeUndefined();
    expect(nonNumericRow([...grouped, { _row_id: 9, n: '12' }], 'n')).toEqual({
      rowId: 9,
      type: 'string',
    });
    expect(nonNumericRow([{ _row_id: 3, n: [1] }], 'n')).toEqual({ rowId: 3, type: 'array' });
    expect(nonNumericRow([{ _row_id: 5, n: Number.NaN }], 'n')).toEqual({
      rowId: 5,
      type: 'number',
    });
  });
});
