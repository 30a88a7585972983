import { describe, expect, it } from 'vitest';
import { formatPoint, parseCoordinates, parsePointText, roundCoordinate } from './coordinates.js';

describe('coordinates', () => {
  it('rounds to the 4 decimals NWS accepts', () => {
    expect(roundCoordinate(30.267_249)).toBe(30.2672);
    expect(roundCoordinate(-97.743_06)).toBe(-97.7431);
    expect(roundCoordinate(-0.000_01)).toBe(0);
    expect(Object.is(roundCoordinate(-0.000_01), -0)).toBe(false);
    expect(parseCoordinates(30.267_249_9, -97.743_099)).toEqual({
      latitude: 30.2672,
      longitude: -97.7431,
    });
  });

  it('formats a point as NWS writes it', () => {
    expect(formatPoint({ latitude: 30.2672, longitude: -97.7431 })).toBe('30.2672,-97.7431');
    expect(formatPoint({ latitude: 40, longitude: -105.5 })).toBe('40,-105.5');
  });

  it('rejects out-of-range and non-finite values, naming the value and the range', () => {
    expect(() => parseCoordinates(91, 0)).toThrow(/latitude must be a number from -90 to 90.*91/);
    expect(() => parseCoordinates(0, -180.5)).toThrow(
      /longitude must be a number from -180 to 180/,
    );
    expect(() => parseCoordinates(Number.NaN, 0)).toThrow(/latitude/);
    expect(() => parseCoordinates(0, Number.POSITIVE_INFINITY)).toThrow(/longitude/);
    expect(parseCoordinates(-90, 180)).toEqual({ latitude: -90, longitude: 180 });
  });

  it('reads lat,lon text like NWS and refuses anything else', () => {
    expect(parsePointText('30.2672,-97.7431')).toEqual({ latitude: 30.2672, longitude: -97.7431 });
    expect(parsePointText('30,-97')).toEqual({ latitude: 30, longitude: -97 });
    for (const bad of ['30.2672', '30.2672, -97.7431', 'a,b', '91,0', '0,181', '1e2,3', '']) {
      expect(parsePointText(bad)).toBeUndefined();
    }
  });
});
