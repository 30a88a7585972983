import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaArrays } from './schema-arrays.js';

/** `@neverinfamous/mysql-mcp` 5.1.1's listed outputSchemas (see the fixture server's comment). */
const MYSQL_MCP = JSON.parse(
  readFileSync(
    new URL('../../test/fixtures/mysql-mcp-output-schemas.json', import.meta.url),
    'utf8',
  ),
) as Record<string, Record<string, unknown>>;

const rows = { type: 'array', items: { type: 'object', properties: { a: {}, b: {} } } };

describe('schemaArrays: the arrays of objects an outputSchema declares', () => {
  it('finds rows one level down (mysql-mcp read_query: /data/rows), and each of several', () => {
    expect(schemaArrays(MYSQL_MCP.mysql_read_query ?? {})).toEqual([
      { pointer: ['data', 'rows'], columns: [] },
    ]);
    expect(schemaArrays(MYSQL_MCP.mysql_describe_table ?? {}).map((a) => a.pointer)).toEqual([
      ['data', 'columns'],
      ['data', 'indexes'],
      ['data', 'foreignKeys'],
    ]);
  });

  it('follows local $refs, anyOf/oneOf/allOf branches and nullable types, and stops at four levels', () => {
    const viaRef = {
      type: 'object',
      properties: { result: { $ref: '#/$defs/Page' } },
      $defs: {
        Page: {
          type: 'object',
          properties: { items: { type: 'array', items: { $ref: '#/$defs/Row' } } },
        },
        Row: { type: 'object', properties: { id: {}, name: {} } },
      },
    };
    expect(schemaArrays(viaRef)).toEqual([
      { pointer: ['result', 'items'], columns: ['id', 'name'] },
    ]);
    const nullable = {
      type: 'object',
      properties: {
        data: { anyOf: [{ type: 'object', properties: { rows } }, { type: 'null' }] },
        page: { oneOf: [{ type: ['object', 'null'], properties: { hits: rows } }] },
      },
    };
    expect(schemaArrays(nullable).map((a) => a.pointer)).toEqual([
      ['data', 'rows'],
      ['page', 'hits'],
    ]);
    const deep = (levels: number): Record<string, unknown> =>
      levels === 0 ? rows : { type: 'object', properties: { x: deep(levels - 1) } };
    expect(schemaArrays(deep(4))).toHaveLength(1);
    expect(schemaArrays(deep(5))).toEqual([]);
  });

  it('finds none in scalars, arrays of scalars, free objects, or a reference cycle', () => {
    expect(
      schemaArrays({
        type: 'object',
        properties: {
          n: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          details: { type: 'object', additionalProperties: {} },
        },
      }),
    ).toEqual([]);
    const cycle = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    };
    expect(schemaArrays(cycle)).toEqual([]);
    expect(
      schemaArrays({ type: 'object', properties: { x: { $ref: 'https://e.com/s' } } }),
    ).toEqual([]);
  });
});
