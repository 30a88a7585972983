import { describe, expect, it } from 'vitest';
import { alertRow } from './alert-rows.js';

describe('alertRow', () => {
  it('drops the JSON-LD keys and keeps the rest in order, nested values as they are', () => {
    const geocode = { SAME: ['048453'], UGC: ['TXZ192'] };
    const row = alertRow({
      '@id': 'https://api.weather.gov/alerts/urn:oid:1',
      '@type': 'wx:Alert',
      id: 'urn:oid:1',
      areaDesc: 'Travis',
      geocode,
      event: 'Heat Advisory',
      parameters: { NWSheadline: ['HEAT ADVISORY'] },
    });
    expect(Object.keys(row)).toEqual(['id', 'areaDesc', 'geocode', 'event', 'parameters']);
    expect(row.geocode).toEqual(geocode);
  });

  it('keeps a "__proto__" key as a column instead of a prototype', () => {
    const properties = JSON.parse('{"@id":"x","__proto__":{"polluted":true},"event":"Test"}');
    const row = alertRow(properties);
    expect(Object.keys(row)).toEqual(['__proto__', 'event']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect((row as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
