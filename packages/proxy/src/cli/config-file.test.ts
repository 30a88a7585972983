import { configErrorVariable } from '@s2sp/server/env';
import { describe, expect, it } from 'vitest';
import { parseConfigFile } from './config-file.js';

describe('parseConfigFile', () => {
  it('reads YAML and JSON with every form of table tool', () => {
    const yaml =
      'tableTools:\n  - query\n  - search:/results\n  - { name: list, pointer: /items }\n  - export:csv\n  - { name: page, format: markdown }\n  - { name: deep, pointer: /a, format: json }\nexcludeTools: [get_file]\ndetect: false\ntokenBudget: 4000\n';
    expect(parseConfigFile(yaml, 'proxy.yaml')).toEqual({
      tableTools: [
        { name: 'query' },
        { name: 'search', pointer: '/results' },
        { name: 'list', pointer: '/items' },
        { name: 'export', format: 'csv' },
        { name: 'page', format: 'markdown' },
        { name: 'deep', pointer: '/a', format: 'json' },
      ],
      excludeTools: ['get_file'],
      detect: false,
      tokenBudget: 4000,
      edge: {},
    });
    expect(parseConfigFile('{"tableTools":["q"]}', 'p.json')).toEqual({
      tableTools: [{ name: 'q' }],
      excludeTools: [],
      detect: undefined,
      tokenBudget: undefined,
      edge: {},
    });
    expect(parseConfigFile('', 'empty.yaml').tableTools).toEqual([]);
  });

  it('reads the HTTP edge keys with the edge’s rules, naming the file and key when one is wrong', () => {
    const yaml =
      'authTokens: [file-token-0123456789]\nallowedHosts: [mcp.example.com]\nallowedBrowserOrigins: [https://app.example.com]\nbodyTimeoutMs: 3000\n';
    expect(parseConfigFile(yaml, 'p.yaml').edge).toEqual({
      auth: { bearerTokens: ['file-token-0123456789'] },
      allowedHosts: ['mcp.example.com'],
      allowedBrowserOrigins: ['https://app.example.com'],
      requestBodyTimeoutMs: 3000,
    });
    for (const [text, key] of [
      ['authTokens: [short]', 'authTokens'],
      ['allowedHosts: ["a b"]', 'allowedHosts'],
      ['allowedBrowserOrigins: [https://app.example.com/page]', 'allowedBrowserOrigins'],
    ]) {
      let variable: string | undefined;
      try {
        parseConfigFile(text as string, 'p.yaml');
      } catch (error) {
        variable = configErrorVariable(error);
      }
      expect(variable).toBe(`p.yaml: ${key}`);
    }
    let timeout: string | undefined;
    try {
      parseConfigFile('bodyTimeoutMs: 5', 'p.yaml');
    } catch (error) {
      timeout = configErrorVariable(error);
    }
    expect(timeout).toBe('p.yaml');
  });

  it('rejects unknown keys, wrong types, bad pointers and broken syntax, naming the file', () => {
    for (const text of [
      'tables: [a]',
      'tableTools: query',
      'tableTools: ["q:rows"]',
      'tableTools: [{ name: q, format: xml }]',
      'tableTools: [{ name: q, pointer: a, format: csv }]',
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
