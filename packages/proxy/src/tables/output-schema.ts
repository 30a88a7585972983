/**
 * The `outputSchema` the proxy lists for a tool that declares one and may answer with S2SP: one
 * that both of its answers satisfy — the upstream's own result (a plain call) and the S2SP object
 * (PROTOCOL §2) — from the first `tools/list` on. A client that validates `structuredContent`
 * (the MCP SDK's `Client` with ajv, the Inspector, other SDKs) then accepts both in one session,
 * however late the proxy learns that the tool returns a table.
 *
 * The listed schema is `{ type: "object", anyOf: [upstream, s2sp] }` (`s2sp`: the S2SP result's
 * required members and row ids, {@link LISTED_S2SP_RESULT_SCHEMA}): MCP requires an object
 * schema at the top, and `anyOf` is plain JSON Schema every validator of draft-07 or 2020-12
 * understands. The upstream's schema moves one level down, so its local references are rewritten
 * (`#/properties/x` → `#/anyOf/0/properties/x`) and its definitions stay at the root.
 *
 * @module
 */

import { S2SPResultSchema } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { z } from 'zod';
import type { Tool } from '../mcp-sdk.js';

type JsonSchema = Record<string, unknown>;
type OutputSchema = NonNullable<Tool['outputSchema']>;

/** The S2SP result object (PROTOCOL §2, §7) as JSON Schema: loose, as readers must be. */
export const S2SP_RESULT_JSON_SCHEMA: JsonSchema = (() => {
  const { $schema: _, ...schema } = z.toJSONSchema(S2SPResultSchema, {
    io: 'output',
    target: 'draft-7',
  }) as JsonSchema;
  return schema;
})();

/**
 * What the listed schema checks of an S2SP result: its required members and each abstract row's
 * `_row_id` (from {@link S2SP_RESULT_JSON_SCHEMA}). The whole result schema would cost every
 * table tool with an `outputSchema` about 190 o200k tokens more on each `tools/list`; a client's
 * validator needs only to tell an S2SP result from a wrong one, and the model learns the result
 * from the instructions the proxy serves.
 */
export const LISTED_S2SP_RESULT_SCHEMA: JsonSchema = (() => {
  const { required, properties } = S2SP_RESULT_JSON_SCHEMA as {
    required: string[];
    properties: { abstract: { items: { required: string[] } } };
  };
  return {
    required,
    properties: { abstract: { items: { required: properties.abstract.items.required } } },
  };
})();

/** Where an upstream schema's definitions live; they stay at the root of the listed schema. */
const DEFINITIONS = ['definitions', '$defs'] as const;
/** Keywords whose meaning depends on where the schema sits in a document. */
const POSITIONAL = ['$id', 'id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef'];
/** Schema nodes the rewrite walks at most: an upstream's schema is its text, not ours to trust. */
const MAX_NODES = 20_000;
const MAX_DEPTH = 64;
/**
 * Keywords whose value maps names to schemas: a property called `default` or `$ref` there is a
 * schema like any other, not the keyword.
 */
const NAMED_SCHEMAS = [
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'dependencies',
];

/** Either the schema to list, or why the tool's schema cannot be combined with S2SP's. */
export type FittedOutputSchema =
  | { readonly ok: true; readonly schema: OutputSchema }
  | { readonly ok: false; readonly reason: string };

class Unfit extends Error {}

/**
 * Copies `node`, prefixing local references that do not point into the root's definitions.
 * `names`: `node` maps names to schemas (`properties`, `$defs`…), so its keys are not keywords.
 */
function moveDown(node: unknown, depth: number, budget: { nodes: number }, names = false): unknown {
  if (--budget.nodes < 0) throw new Unfit(`it has more than ${MAX_NODES} schema nodes`);
  if (depth > MAX_DEPTH) throw new Unfit(`it is nested more than ${MAX_DEPTH} levels deep`);
  if (Array.isArray(node)) return node.map((item) => moveDown(item, depth + 1, budget));
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (names) {
      out[key] = moveDown(value, depth + 1, budget);
    } else if (NAMED_SCHEMAS.includes(key)) {
      out[key] = moveDown(value, depth + 1, budget, true);
    } else if (key === '$ref' && typeof value === 'string') {
      out[key] = movedRef(value);
    } else if (POSITIONAL.includes(key) && typeof value === 'string' && depth > 0) {
      throw new Unfit(`it uses "${key}" inside the schema`);
    } else if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') {
      // Values, not schemas: copied as they are.
      out[key] = value;
    } else {
      out[key] = moveDown(value, depth + 1, budget);
    }
  }
  return out;
}

function movedRef(ref: string): string {
  if (!ref.startsWith('#')) {
    throw new Unfit(`it refers to another document (${JSON.stringify(ref.slice(0, 80))})`);
  }
  if (DEFINITIONS.some((at) => ref.startsWith(`#/${at}/`))) return ref;
  if (ref === '#' || ref.startsWith('#/')) return `#/anyOf/0${ref.slice(1)}`;
  throw new Unfit(`it uses the anchor reference ${JSON.stringify(ref.slice(0, 80))}`);
}

/**
 * The `outputSchema` to list for a tool whose results may be S2SP objects.
 *
 * @param upstream - the tool's own `outputSchema`
 * @returns the combined schema, or the reason (a sentence fragment) it cannot be made
 */
export function fitOutputSchema(upstream: OutputSchema): FittedOutputSchema {
  const { $schema, $id: _id, ...rest } = upstream as JsonSchema;
  const root: JsonSchema = {};
  const body: JsonSchema = {};
  for (const [key, value] of Object.entries(rest)) {
    if ((DEFINITIONS as readonly string[]).includes(key)) root[key] = value;
    else body[key] = value;
  }
  try {
    const budget = { nodes: MAX_NODES };
    const definitions = Object.fromEntries(
      Object.entries(root).map(([key, value]) => [key, moveDown(value, 1, budget, true)]),
    );
    const moved = moveDown(body, 0, budget) as JsonSchema;
    return {
      ok: true,
      schema: {
        ...(typeof $schema === 'string' && { $schema }),
        type: 'object',
        anyOf: [moved, LISTED_S2SP_RESULT_SCHEMA],
        ...definitions,
      } as OutputSchema,
    };
  } catch (error) {
    if (error instanceof Unfit) return { ok: false, reason: error.message };
    throw error;
  }
}
