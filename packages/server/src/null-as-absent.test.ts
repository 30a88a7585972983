import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { nullAsAbsent } from './null-as-absent.js';

/** The JSON types a property accepts, whether written as `type: [...]` or `anyOf`. */
function typesOf(schema: unknown): string[] {
  const s = (schema ?? {}) as { type?: string | string[]; anyOf?: unknown[] };
  if (s.anyOf) return s.anyOf.flatMap(typesOf);
  return s.type === undefined ? [] : ([] as string[]).concat(s.type);
}

const object = z.object(
  nullAsAbsent({
    area: z.string().optional(),
    limit: z.number().int().default(5),
    required: z.string(),
    nullable: z.string().nullable().optional(),
  }),
);

describe('nullAsAbsent', () => {
  it('reads null as absent for optional parameters, applying defaults', () => {
    expect(object.parse({ required: 'x', area: null, limit: null, nullable: null })).toEqual({
      required: 'x',
      area: undefined,
      limit: 5,
      nullable: null,
    });
    expect(object.parse({ required: 'x', area: 'TX', limit: 2 })).toEqual({
      required: 'x',
      area: 'TX',
      limit: 2,
    });
  });

  it('still rejects null for required parameters and wrong types for optional ones', () => {
    expect(object.safeParse({ required: null }).success).toBe(false);
    expect(object.safeParse({ required: 'x', limit: 'many' }).success).toBe(false);
  });

  it('declares null in the JSON Schema and keeps optional parameters optional', () => {
    const schema = z.toJSONSchema(object, { io: 'input', target: 'draft-7' }) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(schema.required).toEqual(['required']);
    expect(typesOf(schema.properties.area)).toEqual(['string', 'null']);
    expect(typesOf(schema.properties.limit)).toEqual(['integer', 'null']);
  });
});
