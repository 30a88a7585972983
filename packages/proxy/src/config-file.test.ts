import { configErrorVariable } from '@s2sp/server/env';
import { describe, expect, it } from 'vitest';
import { parseConfigFile } from './config-file.js';

describe('parseConfigFile', () => {
  it('reads YAML and JSON with every form of table tool', () => {
    const yaml =
      'tableTools:\n  - query\n  - search:/results\n  - { name: list, pointer: /items }\nexcludeTools: [get_file]\ndetect: false\ntokenBudget: 4000\n';
    expect(parseConfigFile(yaml, 'proxy.yaml')).toEqual({
      tableTools: [
        { name: 'query' },
        { name: 'search', pointer: '/results' },
        { name: 'list', pointer: '/items' },
      ],
      excludeTools: ['get_file'],
      detect: false,
      tokenBudget: 4000,
    });
    expect(parseConfigFile('{"tableTools":["q"]}', 'p.json')).toEqual({
      tableTools: [{ name: 'q' }],
      excludeTools: [],
      detect: undefined,
      tokenBudget: undefined,
    });
    expect(parseConfigFile('', 'empty.yaml').tableTools).toEqual([]);
  });

  it('rejects unknown keys, wrong types, bad pointers and broken syntax, naming the file', () => {
    for (const text of [
      'tables: [a]',
      'tableTools: query',
      'tableTools: ["q:rows"]',
      'detect: [',
      'excludeTools: [1]',
      'tokenBudget: 0',
      'tokenBudget: 2.5',
      'tokenBudget: "8000"',
    ]) {
      try {
        parseConfigFile(text, 'proxy.yaml');
        expect.unreachable(text);
      } catch (error) {
        expect(configErrorVariable(error)).toBe('proxy.yaml');
      }
    }
  });
});
