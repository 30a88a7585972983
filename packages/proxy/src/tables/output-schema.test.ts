import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { S2SPResultSchema } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../mcp-sdk.js';
import { fitOutputSchema } from './output-schema.js';

type OutputSchema = NonNullable<Tool['outputSchema']>;

/** The validators the MCP SDK's `Client` uses (ajv by default; cfworker on edge runtimes). */
const VALIDATORS = [
  ['ajv', new AjvJsonSchemaValidator()],
  ['cfworker', new CfWorkerJsonSchemaValidator()],
] as const;

/** A sync-mode S2SP result (PROTOCOL §2), checked against core's own schema below. */
const S2SP_RESULT = {
  total_rows: 2,
  abstract_domains: ['name'],
  body_domains: ['kind'],
  abstract: [
    { _row_id: 0, name: 'Ada' },
    { _row_id: 1, name: 'Grace' },
  ],
  body: [
    { _row_id: 0, kind: 'mathematician' },
    { _row_id: 1, kind: 'computer scientist' },
  ],
};

/** A knowledge graph's result: rows behind a `$ref` to the definitions, and a recursive node. */
function graphSchema(definitions: '$defs' | 'definitions'): OutputSchema {
  return {
    type: 'object',
    properties: {
      entities: { type: 'array', items: { $ref: `#/${definitions}/entity` } },
      // Points at a sibling property: must follow the body one level down.
      primary: { $ref: '#/properties/entities/items' },
      // A property whose name is a keyword whose value is not a schema: it is still a schema.
      default: { $ref: '#/properties/count' },
      count: { type: 'integer' },
      tree: { $ref: `#/${definitions}/node` },
    },
    required: ['entities', 'count'],
    additionalProperties: false,
    [definitions]: {
      entity: {
        type: 'object',
        properties: { name: { type: 'string' }, kind: { type: 'string' } },
        required: ['name', 'kind'],
      },
      node: {
        type: 'object',
        properties: {
          // The whole result, recursively: `#` is the upstream's root, now `#/anyOf/0`.
          children: { type: 'array', items: { $ref: '#' } },
        },
      },
    },
  } as OutputSchema;
}

const PLAIN = {
  entities: [
    { name: 'Ada', kind: 'mathematician' },
    { name: 'Grace', kind: 'computer scientist' },
  ],
  primary: { name: 'Ada', kind: 'mathematician' },
  default: 7,
  count: 2,
  tree: { children: [{ entities: [], count: 0 }] },
};

function fitted(schema: OutputSchema): OutputSchema {
  const result = fitOutputSchema(schema);
  if (!result.ok) throw new Error(`not combined: ${result.reason}`);
  return result.schema;
}

describe('fitOutputSchema: combined schemas', () => {
  it('the S2SP result used here is one core accepts', () => {
    expect(S2SPResultSchema.safeParse(S2SP_RESULT).success).toBe(true);
  });

  describe.each(['$defs', 'definitions'] as const)('references into %s', (definitions) => {
    it.each(VALIDATORS)(
      '%s accepts a plain result and an S2SP result, and nothing else',
      (_, v) => {
        const upstream = graphSchema(definitions);
        // The upstream's schema is right about its own results.
        expect(v.getValidator(upstream)(PLAIN).valid).toBe(true);
        const validate = v.getValidator(fitted(upstream));
        expect(validate(PLAIN)).toMatchObject({ valid: true });
        expect(validate(S2SP_RESULT)).toMatchObject({ valid: true });
        // Each rewritten reference still constrains what it pointed at.
        expect(validate({ ...PLAIN, entities: [{ name: 'Ada' }] }).valid).toBe(false);
        expect(validate({ ...PLAIN, primary: { name: 1, kind: 'x' } }).valid).toBe(false);
        expect(validate({ ...PLAIN, default: 'seven' }).valid).toBe(false);
        expect(validate({ ...PLAIN, tree: { children: [{ count: 0 }] } }).valid).toBe(false);
        expect(validate({ ...S2SP_RESULT, abstract: [{ name: 'no row id' }] }).valid).toBe(false);
        expect(validate({ ...PLAIN, extra: true }).valid).toBe(false);
      },
    );
  });

  it('moves the body under anyOf/0 and keeps definitions, and $schema, at the root', () => {
    const schema = fitted({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://tools.example/graph.json',
      ...graphSchema('$defs'),
    });
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema).not.toHaveProperty('$id');
    expect(schema.type).toBe('object');
    const [body] = schema.anyOf as Record<string, Record<string, Record<string, unknown>>>[];
    expect(body?.properties?.primary).toEqual({ $ref: '#/anyOf/0/properties/entities/items' });
    expect(body?.properties?.default).toEqual({ $ref: '#/anyOf/0/properties/count' });
    expect(body?.properties?.entities).toEqual({
      type: 'array',
      items: { $ref: '#/$defs/entity' },
    });
    expect(body).not.toHaveProperty('$defs');
    expect(Object.keys(schema.$defs as object)).toEqual(['entity', 'node']);
    expect((schema.$defs as Record<string, Record<string, unknown>>).node?.properties).toEqual({
      children: { type: 'array', items: { $ref: '#/anyOf/0' } },
    });
  });

  it('copies values (enum, const, default, examples) as they are', () => {
    const values = { $ref: '#/not/a/reference', $id: 'data' };
    const schema = fitted({
      type: 'object',
      properties: {
        a: { enum: [values] },
        b: { const: values },
        c: { default: values },
        d: { examples: [values] },
      },
    } as OutputSchema);
    const [body] = schema.anyOf as Record<string, Record<string, Record<string, unknown>>>[];
    expect(body?.properties).toEqual({
      a: { enum: [values] },
      b: { const: values },
      c: { default: values },
      d: { examples: [values] },
    });
  });
});

describe('fitOutputSchema: schemas it cannot combine', () => {
  const deep = (levels: number): Record<string, unknown> => {
    let node: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < levels; i++) node = { type: 'array', items: node };
    return node;
  };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'a reference to another document',
      { properties: { a: { $ref: 'https://schemas.example/row.json' } } },
      /^it refers to another document \("https:\/\/schemas\.example\/row\.json"\)$/,
    ],
    [
      'a relative reference to another file',
      { $defs: { a: { $ref: 'row.json#/x' } } },
      /^it refers to another document \("row\.json#\/x"\)$/,
    ],
    [
      'an anchor reference',
      { properties: { a: { $ref: '#row' } } },
      /^it uses the anchor reference "#row"$/,
    ],
    ['$id inside', { properties: { a: { $id: 'row', type: 'object' } } }, /^it uses "\$id"/],
    ['$anchor inside', { $defs: { a: { $anchor: 'row' } } }, /^it uses "\$anchor"/],
    ['draft-04 id inside', { properties: { a: { id: 'row' } } }, /^it uses "id"/],
    [
      '$dynamicRef inside',
      { properties: { a: { $dynamicRef: '#node' } } },
      /^it uses "\$dynamicRef"/,
    ],
    ['$recursiveRef inside', { items: { $recursiveRef: '#' } }, /^it uses "\$recursiveRef"/],
    [
      'more than 20,000 nodes',
      {
        properties: Object.fromEntries(
          Array.from({ length: 11_000 }, (_, i) => [`c${i}`, { type: 'string' }]),
        ),
      },
      /^it has more than 20000 schema nodes$/,
    ],
    ['more than 64 levels', { properties: { a: deep(70) } }, /^it is nested more than 64 levels/],
  ];

  it.each(cases)('%s: refused with its reason', (_, upstream, reason) => {
    const result = fitOutputSchema({ type: 'object', ...upstream } as OutputSchema);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(reason);
  });

  it('just under the limits: combined', () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 6_000 }, (_, i) => [`c${i}`, { type: 'string' }]),
      ),
    };
    expect(fitOutputSchema(wide as OutputSchema).ok).toBe(true);
    const nested = { type: 'object', properties: { a: deep(55) } };
    expect(fitOutputSchema(nested as OutputSchema).ok).toBe(true);
  });
});
