/**
 * The arrays of objects a tool's `outputSchema` declares, wherever they are in it: a property of
 * the top object (`{"items": [...]}`), or one or more levels of objects down
 * (`@neverinfamous/mysql-mcp`'s `{"success", "data": {"rows": [...], "rowCount"}}`), through
 * local `$ref`s (`#/$defs/Row`) and the branches of `anyOf`/`oneOf`/`allOf` (a nullable object is
 * `anyOf: [{...}, {"type": "null"}]`). These are the places in `structuredContent` where the
 * tool says its rows are; `table-tools.ts` decides from them whether the tool is a table tool.
 *
 * The walk follows the one rule for results (`detect/json-document.ts`): at most `MAX_DEPTH`
 * levels of objects below the top, and an array of objects is a candidate whose items are not
 * searched further.
 *
 * @module
 */

import { isPlainObject } from '@s2sp/core/json';
import { MAX_DEPTH } from './detect/json-document.js';
import { resolveJsonPointer } from './json-pointer.js';

type JsonSchema = Record<string, unknown>;

/** An array of objects an `outputSchema` declares. */
export interface SchemaArray {
  /** Reference tokens of where it is in `structuredContent` (`["data", "rows"]`). */
  readonly pointer: readonly string[];
  /** The names of its items' declared properties (none for `{"type": "object"}` alone). */
  readonly columns: readonly string[];
}

/**
 * Schema nodes looked at per schema, `$ref`s followed included: an upstream's schema is its text,
 * and a reference cycle or a huge schema must not make listing tools slow.
 */
const MAX_NODES = 20_000;
/** Branch keywords whose object shapes describe the same value. */
const BRANCHES = ['anyOf', 'oneOf', 'allOf'] as const;

/** The schema a local `$ref` names (`#/$defs/Row`, `#/properties/data`), or `undefined`. */
function referenced(root: JsonSchema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  const tokens = ref
    .slice(2)
    .split('/')
    .map((token) => decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~'));
  return resolveJsonPointer(root, tokens);
}

function hasType(node: JsonSchema, type: string): boolean {
  const declared = node.type;
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

/**
 * Every array of objects `schema` declares, in the order met (breadth first by level of objects),
 * one per pointer.
 *
 * @param schema - a tool's `outputSchema`
 */
export function schemaArrays(schema: JsonSchema): SchemaArray[] {
  const found = new Map<string, SchemaArray>();
  let budget = MAX_NODES;

  /**
   * The object-like schema nodes `node` stands for: itself, what its `$ref` names, its branches
   * (each followed once per walk of one value: `seen` breaks reference cycles).
   */
  const shapes = (node: unknown, seen: Set<unknown>, out: JsonSchema[] = []): JsonSchema[] => {
    if (!isPlainObject(node) || seen.has(node) || --budget < 0) return out;
    seen.add(node);
    out.push(node);
    if (typeof node.$ref === 'string') shapes(referenced(schema, node.$ref), seen, out);
    for (const key of BRANCHES) {
      const branches = node[key];
      if (Array.isArray(branches)) for (const branch of branches) shapes(branch, seen, out);
    }
    return out;
  };

  const isObjectShape = (node: unknown): boolean =>
    shapes(node, new Set()).some(
      (shape) => hasType(shape, 'object') || isPlainObject(shape.properties),
    );

  const columnsOf = (items: unknown): string[] => {
    const names = new Set<string>();
    for (const shape of shapes(items, new Set())) {
      if (isPlainObject(shape.properties))
        for (const key of Object.keys(shape.properties)) names.add(key);
    }
    return [...names];
  };

  let level: [string[], unknown][] = [[[], schema]];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0 && budget > 0; depth++) {
    const next: [string[], unknown][] = [];
    for (const [pointer, node] of level) {
      for (const shape of shapes(node, new Set())) {
        if (hasType(shape, 'array') || 'items' in shape) {
          const items = shape.items;
          const key = JSON.stringify(pointer);
          if (pointer.length > 0 && isObjectShape(items) && !found.has(key)) {
            found.set(key, { pointer, columns: columnsOf(items) });
          }
          continue;
        }
        if (!isPlainObject(shape.properties)) continue;
        for (const [name, member] of Object.entries(shape.properties)) {
          next.push([[...pointer, name], member]);
        }
      }
    }
    level = next;
  }
  return [...found.values()];
}
