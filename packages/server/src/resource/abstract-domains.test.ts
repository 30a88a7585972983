import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { assertKnownColumns, parseAbstractDomains } from './abstract-domains.js';

function thrown(fn: () => unknown): S2SPError {
  try {
    fn();
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
    throw new Error(`expected an S2SPError, got ${String(error)}`);
  }
  throw new Error('expected a throw');
}

describe('parseAbstractDomains', () => {
  it.each([
    ['event,severity', ['event', 'severity']],
    [' event , severity ,, ', ['event', 'severity']],
    ['["event","severity"]', ['event', 'severity']],
    [' [ "event" , " severity " ] ', ['event', 'severity']],
    [
      ['event', 'severity'],
      ['event', 'severity'],
    ],
    ['event,severity,event', ['event', 'severity']],
    ['severity,event', ['severity', 'event']],
    ['["a,b", "c"]', ['a,b', 'c']],
    ['_row_id,event', ['event']],
  ])('parses %j', (input, expected) => {
    expect(parseAbstractDomains(input)).toEqual(expected);
  });

  it.each([[undefined], [null], [''], ['   '], [[]], ['[]'], [',,'], [['', ' ']]])(
    'treats %j as absent',
    (input) => {
      expect(parseAbstractDomains(input)).toEqual([]);
    },
  );

  it('rejects malformed JSON arrays with a hint about both accepted forms', () => {
    const error = thrown(() => parseAbstractDomains('["event", severity]'));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/comma-separated.*JSON array/);
  });

  it('rejects non-string items, naming their index', () => {
    expect(thrown(() => parseAbstractDomains('["event", 3]')).message).toMatch(
      /item 1 is a number/,
    );
    expect(thrown(() => parseAbstractDomains([['nested']])).message).toMatch(/item 0 is an array/);
  });

  it('rejects other types', () => {
    expect(thrown(() => parseAbstractDomains(42)).message).toMatch(/is a number/);
    expect(thrown(() => parseAbstractDomains({ event: true })).message).toMatch(/is an object/);
  });
});

describe('assertKnownColumns', () => {
  const columns = ['event', 'severity', 'areaDesc'];

  it('accepts known columns', () => {
    expect(() => assertKnownColumns(['event'], columns, 3)).not.toThrow();
    expect(assertKnownColumns(['severity', 'event'], columns, 3)).toBeUndefined();
  });

  it('names unknown columns, suggests near matches and lists the available ones', () => {
    const error = thrown(() => assertKnownColumns(['Severity', 'area_desc', 'colour'], columns, 3));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(
      'Unknown abstract_domains columns: "Severity", "area_desc", "colour".',
    );
    expect(error.message).toContain(
      'Did you mean "Severity" → "severity", "area_desc" → "areaDesc"?',
    );
    expect(error.message).toContain('Available columns: "event", "severity", "areaDesc".');
    expect(error.data).toEqual({
      unknownColumns: ['Severity', 'area_desc', 'colour'],
      availableColumns: columns,
    });
  });

  it('accepts any names when the table has no rows', () => {
    expect(assertKnownColumns(['anything'], [], 0)).toBeUndefined();
  });
});
