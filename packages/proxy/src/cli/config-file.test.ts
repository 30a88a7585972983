import { configErrorVariable } from '@s2sp/core/options';
import { describe, expect, it } from 'vitest';
import { parseConfigFile } from './config-file.js';

function fails(text: string): string | undefined {
  try {
    parseConfigFile(text, 'p.yaml');
  } catch (error) {
    return configErrorVariable(error);
  }
  throw new Error(`accepted ${text}`);
}

describe('parseConfigFile', () => {
  it('reads YAML and JSON, with table tools in the options’ form and other keys as they are', () => {
    expect(
      parseConfigFile('tableTools: [q, "s:/rows", { name: c, format: csv }]\nttl: 5\n', 'p.yaml'),
    ).toEqual({
      name: 'p.yaml',
      document: {
        tableTools: [{ name: 'q' }, { name: 's', pointer: '/rows' }, { name: 'c', format: 'csv' }],
        ttl: 5,
      },
    });
    expect(parseConfigFile('{"detect": false}', 'p.json').document).toEqual({ detect: false });
    expect(parseConfigFile('', 'e.yaml').document).toEqual({});
  });

  it('names the file for broken syntax or a document that is no object, and the key for a bad rule', () => {
    expect(fails('detect: [')).toBe('p.yaml');
    expect(fails('[1, 2]')).toBe('p.yaml');
    expect(fails('tableTools: ["q:rows"]')).toBe('p.yaml: tableTools');
    expect(fails('tableTools: [{ name: q, extra: 1 }]')).toBe('p.yaml: tableTools');
  });
});
