import type { z } from 'zod';

/**
 * What an option's schema says about itself besides its rule, set with zod's `.meta()`:
 * `positiveInteger().default(10).meta({ env: 'S2SP_MAX_THINGS', description: '…' })`. The option
 * table, the environment and command-line readers and the error of {@link parseOptions} read it,
 * so an option, its documentation and its variable cannot drift apart.
 */
export interface OptionMeta {
  /** One sentence for the options table (zod's own `.describe()` sets the same field). */
  readonly description?: string;
  /** The environment variable that sets it (`S2SP_BODY_TIMEOUT_MS`). */
  readonly env?: string;
  /** The command-line flag that sets it (`--body-timeout-ms`); a list option's flag repeats. */
  readonly flag?: string;
  /** Its key in a configuration file, when that differs from the option's name (`bodyTimeoutMs`). */
  readonly key?: string;
  /** What a valid value is, completing "must be …" in the error (set by the building blocks). */
  readonly allowed?: string;
  /** The type as the options table shows it (`bytes`, `ms`, `URL`), when zod's is too vague. */
  readonly type?: string;
  /** The default as the options table shows it, when it is not a plain value (`in memory`). */
  readonly defaultText?: string;
  /** List the members of this object option as rows of their own (`consumer.timeoutMs`). */
  readonly expand?: boolean;
}

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly defaultValue?: unknown;
  readonly shape?: Record<string, z.ZodType>;
  readonly element?: z.ZodType;
  readonly entries?: Record<string, unknown>;
}

/** The zod definition of `schema` (zod 4 keeps it on `_zod.def`). */
export function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch']);

/**
 * The schemas `schema` wraps, outermost first: optional, default and readonly wrappers, and the
 * input side of a pipe (a transform reads what its input schema accepts).
 */
export function layersOf(schema: z.ZodType): z.ZodType[] {
  const layers: z.ZodType[] = [];
  let current: z.ZodType | undefined = schema;
  while (current && layers.length < 32) {
    layers.push(current);
    const def = defOf(current);
    if (WRAPPERS.has(def.type)) current = def.innerType;
    else if (def.type === 'pipe')
      current = defOf(def.in as z.ZodType).type === 'transform' ? def.out : def.in;
    else current = undefined;
  }
  return layers;
}

/** The innermost schema under the wrappers of {@link layersOf}: the one that says the type. */
export function baseOf(schema: z.ZodType): z.ZodType {
  return layersOf(schema).at(-1) ?? schema;
}

/**
 * The metadata of an option's schema, merged over its wrappers: the building block's own
 * (`allowed`, `type`) first, then what `.meta()` and `.describe()` added outside it.
 */
export function optionMeta(schema: z.ZodType): OptionMeta {
  let merged: OptionMeta = {};
  for (const layer of layersOf(schema).reverse()) {
    // `.meta()` without arguments reads the registry of the zod copy that built the schema.
    const own = (layer as unknown as { meta?: () => OptionMeta | undefined }).meta?.();
    if (own) merged = { ...merged, ...own };
  }
  return merged;
}

/** The default of an option (`.default(…)` anywhere in its wrappers), or `undefined`. */
export function defaultOf(schema: z.ZodType): { readonly value: unknown } | undefined {
  for (const layer of layersOf(schema)) {
    const def = defOf(layer);
    if (def.type === 'default') return { value: def.defaultValue };
  }
  return undefined;
}

/** The members of an object schema (under its wrappers), or `undefined` for anything else. */
export function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const base = baseOf(schema);
  const def = defOf(base);
  return def.type === 'object' ? def.shape : undefined;
}
