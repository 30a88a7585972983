import { describe, expect, it } from 'vitest';
import {
  areaName,
  describeAreaCodes,
  isNwsAreaCode,
  NWS_AREA_CODES,
  NWS_MARINE_AREAS,
  NWS_STATE_TERRITORY_AREAS,
  parseAreaCode,
} from './area-codes.js';

describe('NWS area codes', () => {
  it('has the 50 states, DC, 8 territories and 15 marine areas, each once', () => {
    expect(Object.keys(NWS_STATE_TERRITORY_AREAS)).toHaveLength(59);
    expect(Object.keys(NWS_MARINE_AREAS)).toEqual([
      'AM',
      'AN',
      'GM',
      'LC',
      'LE',
      'LH',
      'LM',
      'LO',
      'LS',
      'PH',
      'PK',
      'PM',
      'PS',
      'PZ',
      'SL',
    ]);
    expect(new Set(NWS_AREA_CODES).size).toBe(74);
    for (const code of ['TX', 'DC', 'PR', 'VI', 'GU', 'AS', 'MP', 'PW', 'FM', 'MH']) {
      expect(isNwsAreaCode(code)).toBe(true);
    }
    expect(areaName('TX')).toBe('Texas');
    expect(areaName('LE')).toBe('Lake Erie');
  });

  it('normalises case and whitespace', () => {
    expect(parseAreaCode('tx')).toBe('TX');
    expect(parseAreaCode(' Ca ')).toBe('CA');
    expect(parseAreaCode('gm')).toBe('GM');
  });

  it('rejects what NWS rejects, listing every valid code', () => {
    for (const bad of ['UM', 'XX', 'Texas', '', 'T X', 'TXZ192']) {
      expect(() => parseAreaCode(bad)).toThrow(/is not an NWS area code/);
    }
    expect(isNwsAreaCode('tx')).toBe(false);
    const message = (() => {
      try {
        parseAreaCode('ZZ');
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message).toContain('"ZZ"');
    expect(message).toContain(describeAreaCodes());
    for (const code of NWS_AREA_CODES) expect(message).toContain(code);
  });

  it('bounds the echoed input', () => {
    expect(() => parseAreaCode('x'.repeat(500))).toThrow(/"x{40}…"/);
  });
});
