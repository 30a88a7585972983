import { describe, expect, it } from 'vitest';
import type { Tool } from '../mcp-sdk.js';
import { createTableTools, declaredTable } from './table-tools.js';

const parameters = {
  abstract_domains: { type: 'string' },
  mode: { type: 'string' },
  filter: { type: 'object' },
  cursor: { type: 'string' },
};
const make = (options: Partial<Parameters<typeof createTableTools>[0]> = {}) =>
  createTableTools({
    describe: (d) => `${d ?? ''} [S2SP]`,
    parameters: () => parameters,
    ...options,
  });
const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  ...extra,
});
const rowsSchema = {
  type: 'object' as const,
  properties: {
    items: { type: 'array', items: { type: 'object', properties: { a: {}, b: {} } } },
    total: { type: 'integer' },
  },
};

describe('table tools', () => {
  it('reads a declared table from an outputSchema with exactly one array of objects', () => {
    expect(declaredTable(tool('t', { outputSchema: rowsSchema }))).toEqual({
      pointer: ['items'],
      columns: ['a', 'b'],
    });
    expect(
      declaredTable(
        tool('t', { outputSchema: { type: 'object', properties: { n: { type: 'integer' } } } }),
      ),
    ).toBeUndefined();
    const two = {
      type: 'object' as const,
      properties: { x: rowsSchema.properties.items, y: rowsSchema.properties.items },
    };
    expect(declaredTable(tool('t', { outputSchema: two }))).toBeUndefined();
  });

  it('decorates configured and declared tools, and leaves the rest byte-identical', () => {
    const tables = make({ include: [{ name: 'configured', pointer: '/rows' }] });
    const plain = tool('plain');
    const [configured, declared, untouched] = tables.decorate([
      tool('configured'),
      tool('declared', { outputSchema: rowsSchema }),
      plain,
    ]);
    expect(Object.keys(configured?.inputSchema.properties ?? {})).toEqual([
      'q',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);
    expect(configured?.description).toBe('configured tool [S2SP]');
    expect(declared?.outputSchema).toBeUndefined();
    expect(declared?.description).toContain('"a", "b"');
    expect(untouched).toBe(plain);
    expect(tables.info('configured').pointer).toEqual(['rows']);
    expect(tables.info('declared').declaredColumns).toEqual(['a', 'b']);
  });

  it("keeps an upstream's own cursor or filter, and turns that extension off for the tool", () => {
    const tables = make({ include: [{ name: 'paged' }, { name: 'both' }, { name: 'neither' }] });
    const ownCursor = { type: 'integer', description: 'the upstream page' };
    const [paged, both] = tables.decorate([
      tool('paged', { inputSchema: { type: 'object', properties: { cursor: ownCursor } } }),
      tool('both', { inputSchema: { type: 'object', properties: { filter: {}, cursor: {} } } }),
      tool('neither'),
    ]);
    expect(paged?.inputSchema.properties).toEqual({
      cursor: ownCursor,
      abstract_domains: parameters.abstract_domains,
      mode: parameters.mode,
      filter: parameters.filter,
    });
    expect(Object.keys(both?.inputSchema.properties ?? {})).toEqual([
      'filter',
      'cursor',
      'abstract_domains',
      'mode',
    ]);
    expect(both?.inputSchema.properties?.filter).toEqual({});
    expect(tables.info('paged').extensions).toEqual(['filter', 'table']);
    expect(tables.info('both').extensions).toEqual(['table']);
    expect(tables.info('neither').extensions).toEqual(['filter', 'cursor', 'table']);
    // Not listed yet: nothing is known to clash.
    expect(tables.info('unlisted').extensions).toEqual(['filter', 'cursor', 'table']);
  });

  it('learns a table tool and reports a changed listing only when the columns change', () => {
    const tables = make();
    tables.decorate([tool('q')]);
    expect(tables.info('q').table).toBe(false);
    expect(tables.observe('q', ['id', 'name'])).toBe(true);
    expect(tables.observe('q', ['id', 'name'])).toBe(false);
    expect(tables.observe('q', ['id'])).toBe(true);
    expect(tables.decorate([tool('q')])[0]?.description).toContain('"id".');
  });

  it('never treats excluded tools or tools with their own abstract_domains as tables', () => {
    const tables = make({ exclude: ['x'], include: [{ name: 'own' }] });
    tables.decorate([
      tool('x'),
      tool('own', { inputSchema: { type: 'object', properties: { mode: {} } } }),
    ]);
    expect(tables.observe('x', ['a'])).toBe(false);
    expect(tables.info('own')).toMatchObject({ table: false, blocked: true, extensions: [] });
  });

  it('does not learn with detect off, and caps the column list it prints', () => {
    expect(make({ detect: false }).observe('q', ['a'])).toBe(false);
    const tables = make();
    tables.observe(
      'wide',
      Array.from({ length: 150 }, (_, i) => `c${i}`),
    );
    expect(tables.decorate([tool('wide')])[0]?.description).toContain('… and 100 more');
  });

  it('keeps a table tool description within a fixed size whatever the upstream writes', () => {
    const tables = make({ include: [{ name: 'long' }] });
    const names = Array.from({ length: 20_000 }, (_, i) => `c${i}_${'x'.repeat(200)}`);
    tables.observe('long', names);
    const [decorated] = tables.decorate([tool('long', { description: 'd'.repeat(100_000) })]);
    const description = decorated?.description ?? '';
    expect(description).toContain('… (96,000 more characters left out by the proxy)');
    expect(description).toContain('… and 19,950 more');
    expect(description.length).toBeLessThan(9_000);
  });
});
