import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../mcp-sdk.js';
import { GATEWAY_PARTS } from './s2sp-call.js';
import { createTableTools, declaredTable, parameterNames } from './table-tools.js';

const parameters = {
  abstract_domains: { type: 'string' },
  mode: { type: 'string' },
  filter: { type: 'object' },
  cursor: { type: 'string' },
  abstract_budget_tokens: { type: 'integer' },
};
const make = (options: Partial<Parameters<typeof createTableTools>[0]> = {}) =>
  createTableTools({
    describe: (d) => `${d ?? ''} [S2SP]`,
    parameters: () => parameters,
    measures: GATEWAY_PARTS,
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
const rows = (columns: string[]) =>
  [0, 1, 2].map((i) => Object.fromEntries(columns.map((c) => [c, `${c}-${i}`])));
const observe = (
  tables: ReturnType<typeof make>,
  client: string,
  name: string,
  columns: string[],
) => tables.observe(client, name, rows(columns), columns);

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

  it('reads a table declared one or more levels down (@neverinfamous/mysql-mcp 5.1.1)', () => {
    const schemas = JSON.parse(
      readFileSync(
        new URL('../../test/fixtures/mysql-mcp-output-schemas.json', import.meta.url),
        'utf8',
      ),
    ) as Record<string, Tool['outputSchema']>;
    const readOnly = { readOnlyHint: true, destructiveHint: false };
    const read = tool('mysql_read_query', {
      inputSchema: { type: 'object', properties: { query: { type: 'string' }, cursor: {} } },
      outputSchema: schemas.mysql_read_query,
      annotations: readOnly,
    });
    const describeTable = tool('mysql_describe_table', {
      outputSchema: schemas.mysql_describe_table,
      annotations: readOnly,
    });
    expect(declaredTable(read)).toEqual({ pointer: ['data', 'rows'], columns: [] });
    // Several arrays: no pointer, but not blocked either; a result makes it a table tool.
    expect(declaredTable(describeTable)).toBeUndefined();
    const tables = make();
    const [listed] = tables.decorate([read, describeTable], 'a');
    expect(tables.info('mysql_read_query', 'a')).toMatchObject({
      table: true,
      blocked: false,
      pointer: ['data', 'rows'],
    });
    expect(listed?.inputSchema.properties).toHaveProperty('abstract_domains');
    expect(listed?.inputSchema.properties).toHaveProperty('s2sp_cursor');
    expect(tables.info('mysql_describe_table', 'a')).toMatchObject({
      table: false,
      blocked: false,
    });
    // No array of objects at any level: blocked, and it says why.
    const scalar = tool('n', {
      outputSchema: { type: 'object', properties: { data: { type: 'object', properties: {} } } },
    });
    tables.decorate([scalar], 'a');
    expect(tables.info('n', 'a')).toMatchObject({
      blocked: true,
      blockedBecause: 'no-declared-table',
    });
  });

  it('does not take a write tool, or one echoing its input, for a table tool', () => {
    const echo = tool('create_entities', {
      inputSchema: { type: 'object', properties: { items: rowsSchema.properties.items } },
      outputSchema: rowsSchema,
    });
    const writes = tool('w', { outputSchema: rowsSchema, annotations: { readOnlyHint: false } });
    expect(declaredTable(echo)).toBeUndefined();
    expect(declaredTable(writes)).toBeUndefined();
    const tables = make();
    const [listedEcho, listedWrites] = tables.decorate([echo, writes], 'a');
    expect(listedEcho).toBe(echo);
    expect(listedWrites).toBe(writes);
    expect(tables.info('create_entities', 'a')).toMatchObject({ table: false, blocked: true });
    // What it returns does not make it one either.
    expect(observe(tables, 'a', 'create_entities', ['a', 'b'])).toBe(false);
    // The operator can.
    const configured = make({ include: [{ name: 'w' }] });
    configured.decorate([writes], 'a');
    expect(configured.info('w', 'a').table).toBe(true);
  });

  it('reads the four hints mcp-go stamps on every tool as no statement (excel_describe_sheets)', () => {
    // As @negokaz/excel-mcp-server 0.12.0 lists its read-only excel_describe_sheets.
    const stamped = {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    };
    const describeSheets = tool('excel_describe_sheets', { annotations: stamped });
    const tables = make();
    tables.decorate([describeSheets], 'a');
    expect(tables.info('excel_describe_sheets', 'a')).toMatchObject({
      blocked: false,
      learns: true,
    });
    // What it returns makes it a table tool for that client, as with no annotations at all.
    expect(observe(tables, 'a', 'excel_describe_sheets', ['name', 'usedRange'])).toBe(true);
    expect(tables.info('excel_describe_sheets', 'a').table).toBe(true);
    // A hint that differs from the defaults is a statement: this tool writes.
    const deletes = tool('delete_rows', { annotations: { ...stamped, idempotentHint: true } });
    tables.decorate([deletes], 'a');
    expect(tables.info('delete_rows', 'a')).toMatchObject({ blocked: true, learns: false });
  });

  it('decorates configured and declared tools, and leaves the rest byte-identical', () => {
    const tables = make({ include: [{ name: 'configured', pointer: '/rows' }] });
    const plain = tool('plain');
    const [configured, declared, untouched] = tables.decorate(
      [tool('configured'), tool('declared', { outputSchema: rowsSchema }), plain],
      'a',
    );
    expect(Object.keys(configured?.inputSchema.properties ?? {})).toEqual([
      'q',
      ...Object.keys(parameters),
    ]);
    expect(configured?.description).toBe('configured tool [S2SP]');
    // An outputSchema both the plain and the S2SP result satisfy.
    expect(declared?.outputSchema?.anyOf).toHaveLength(2);
    expect((declared?.outputSchema?.anyOf as unknown[] | undefined)?.[0]).toEqual(rowsSchema);
    expect(declared?.description).toContain('"a", "b"');
    expect(untouched).toBe(plain);
    expect(tables.info('configured', 'a').pointer).toEqual(['rows']);
    expect(tables.info('declared', 'a').declaredColumns).toEqual(['a', 'b']);
  });

  it("lists S2SP's parameters under a prefixed name where the tool has its own", () => {
    expect(parameterNames(['mode', 'cursor', 'filter'], ['mode', 'cursor', 's2sp_cursor'])).toEqual(
      { mode: 's2sp_mode', cursor: 's2sp_s2sp_cursor', filter: 'filter' },
    );
    const tables = make({ include: [{ name: 'git_branch' }] });
    const ownMode = { type: 'string', enum: ['local', 'remote'] };
    const [listed] = tables.decorate(
      [tool('git_branch', { inputSchema: { type: 'object', properties: { mode: ownMode } } })],
      'a',
    );
    expect(listed?.inputSchema.properties?.mode).toEqual(ownMode);
    expect(listed?.inputSchema.properties?.s2sp_mode).toEqual(parameters.mode);
    expect(Object.keys(listed?.inputSchema.properties ?? {})).toEqual([
      'mode',
      'abstract_domains',
      's2sp_mode',
      'filter',
      'cursor',
      'abstract_budget_tokens',
    ]);
    expect(listed?.description).toContain("s2sp_mode (S2SP's mode)");
    expect(tables.info('git_branch', 'a').names.mode).toBe('s2sp_mode');
    expect(tables.info('unlisted', 'a').names.mode).toBe('mode');
  });

  it('learns per client, and reports a changed listing only when its columns change', () => {
    const tables = make();
    tables.decorate([tool('q')], 'a');
    expect(tables.info('q', 'a').table).toBe(false);
    expect(observe(tables, 'a', 'q', ['id', 'name'])).toBe(true);
    expect(observe(tables, 'a', 'q', ['id', 'name'])).toBe(false);
    expect(observe(tables, 'a', 'q', ['id'])).toBe(true);
    expect(tables.decorate([tool('q')], 'a')[0]?.description).toMatch(/"id" ~\d+\./);
    // Another client learned nothing: the tool is as upstream for it.
    expect(tables.info('q', 'b').table).toBe(false);
    const plain = tool('q');
    expect(tables.decorate([plain], 'b')[0]).toBe(plain);
  });

  it('never treats excluded tools as tables', () => {
    const tables = make({ exclude: ['x'] });
    tables.decorate([tool('x')], 'a');
    expect(observe(tables, 'a', 'x', ['a'])).toBe(false);
    expect(tables.info('x', 'a')).toMatchObject({ table: false, blocked: true });
  });

  it('does not learn with detect off, and caps the column list it prints', () => {
    expect(observe(make({ detect: false }), 'a', 'q', ['a'])).toBe(false);
    // A plain call of a tool that can teach nothing is not read at all.
    expect(make({ detect: false }).info('q', 'a').learns).toBe(false);
    expect(make({ detect: false, include: [{ name: 'q' }] }).info('q', 'a').learns).toBe(true);
    expect(make().info('q', 'a').learns).toBe(true);
    expect(make({ exclude: ['q'] }).info('q', 'a').learns).toBe(false);
    const tables = make();
    observe(
      tables,
      'a',
      'wide',
      Array.from({ length: 150 }, (_, i) => `c${i}`),
    );
    expect(tables.decorate([tool('wide')], 'a')[0]?.description).toContain('… and 100 more');
  });

  it('keeps a table tool description within a fixed size whatever the upstream writes', () => {
    const tables = make({ include: [{ name: 'long' }] });
    const names = Array.from({ length: 20_000 }, (_, i) => `c${i}_${'x'.repeat(200)}`);
    tables.observe('a', 'long', [], names);
    const [decorated] = tables.decorate([tool('long', { description: 'd'.repeat(100_000) })], 'a');
    const description = decorated?.description ?? '';
    expect(description).toContain('… (96,000 more characters left out by the proxy)');
    expect(description).toContain('… and 19,950 more');
    expect(description.length).toBeLessThan(9_000);
  });

  it('lists the arrays of a client’s last result with several in that client’s description only', () => {
    const tables = make();
    tables.decorate([tool('search')], 'a');
    const long = `/${'x'.repeat(200)}`;
    const arrays = [
      { pointer: '/users', rows: 1200 },
      { pointer: long, rows: 3 },
      ...Array.from({ length: 12 }, (_, i) => ({ pointer: `/extra${i}`, rows: i })),
    ];
    expect(tables.observeArrays('a', 'search', arrays)).toBe(true);
    expect(tables.observeArrays('a', 'search', arrays)).toBe(false);
    const mine = tables.decorate([tool('search')], 'a')[0]?.description ?? '';
    expect(mine).toContain('"/users" (1,200 rows)');
    expect(mine).toContain(`"${long.slice(0, 64)}" (3 rows)`);
    expect(mine).not.toContain('/extra8');
    expect(mine).toContain('… and 4 more.');
    // Another client has seen no result: nothing of the first client's reaches it.
    const theirs = tables.decorate([tool('search')], 'b')[0]?.description ?? '';
    expect(theirs).not.toContain('/users');
    expect(theirs).toBe('search tool');
    // A later result with one array: the list is gone; the columns learned stay.
    observe(tables, 'a', 'search', ['id']);
    expect(tables.observeArrays('a', 'search', [{ pointer: '', rows: 3 }])).toBe(true);
    const after = tables.decorate([tool('search')], 'a')[0]?.description ?? '';
    expect(after).not.toContain('/users');
    expect(after).toContain('"id"');
  });

  it('lists no arrays for a result with one, nor for a tool that is not a table tool', () => {
    const tables = make({ exclude: ['raw'] });
    expect(tables.observeArrays('a', 'search', [{ pointer: '/users', rows: 5 }])).toBe(false);
    expect(tables.info('search', 'a').table).toBe(false);
    const two = [
      { pointer: '/a', rows: 1 },
      { pointer: '/b', rows: 2 },
    ];
    expect(tables.observeArrays('a', 'raw', two)).toBe(false);
    expect(tables.decorate([tool('raw')], 'a')[0]?.description).toBe('raw tool');
  });
});
