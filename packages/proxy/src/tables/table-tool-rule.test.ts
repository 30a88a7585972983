import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { TABLE_FORMATS } from './detect/text-formats.js';
import { parseTableToolRule } from './table-tool-rule.js';

const code = (text: string) => {
  try {
    parseTableToolRule('--table-tool', text);
  } catch (error) {
    return S2SPError.isInstance(error) ? error.code : 'other';
  }
  return undefined;
};

describe('parseTableToolRule', () => {
  it('reads NAME, NAME:POINTER, NAME:FORMAT and NAME:POINTER:FORMAT', () => {
    expect(parseTableToolRule('f', 'q')).toEqual({ name: 'q' });
    expect(parseTableToolRule('f', 'q:/a/b')).toEqual({ name: 'q', pointer: '/a/b' });
    expect(parseTableToolRule('f', 'q:csv')).toEqual({ name: 'q', format: 'csv' });
    expect(parseTableToolRule('f', 'q:/a:json')).toEqual({
      name: 'q',
      pointer: '/a',
      format: 'json',
    });
    // A colon inside a pointer that is not followed by a format stays in the pointer.
    expect(parseTableToolRule('f', 'q:/a:b')).toEqual({ name: 'q', pointer: '/a:b' });
  });

  it('takes a pointer with a text format: the string member holding the table', () => {
    expect(parseTableToolRule('f', 'export_query_to_csv:/csv:csv')).toEqual({
      name: 'export_query_to_csv',
      pointer: '/csv',
      format: 'csv',
    });
    for (const format of TABLE_FORMATS) {
      expect(parseTableToolRule('f', `q:/data:${format}`)).toEqual({
        name: 'q',
        pointer: '/data',
        format,
      });
    }
  });

  it('refuses a bad name, a word that is no format, and a pointer without "/"', () => {
    expect(code('q:rows')).toBe('invalid_config');
    expect(code('q:xml')).toBe('invalid_config');
    expect(code('bad name')).toBe('invalid_config');
    expect(code('q:rows/x:csv')).toBe('invalid_config');
  });
});
