import type { z } from 'zod';
import { baseOf, defaultOf, defOf, optionMeta, shapeOf } from './option-meta.js';

/** One row of an options table: what {@link optionRows} reads from a schema. */
export interface OptionRow {
  /** The option's path (`ttlSeconds`, `consumer.timeoutMs`). */
  readonly name: string;
  /** Its type as shown (`integer`, `bytes`, `ms`, `URL`, `string[]`, `"json" \| "compact"`). */
  readonly type: string;
  /** Its default as shown (`600`, `4 MiB`, `"warn"`), or `—`. */
  readonly default: string;
  /** The environment variables that set it (the option's own, or its members'). */
  readonly env: readonly string[];
  /** The command-line flags that set it. */
  readonly flags: readonly string[];
  /** The configuration-file keys that set it. */
  readonly keys: readonly string[];
  /** Its description, or empty. */
  readonly description: string;
}

const KIB = 1024;
const MIB = 1024 * 1024;

/**
 * A default as an options table shows it: sizes in KiB or MiB when they are whole ones, text
 * quoted, nothing as `—`.
 *
 * @param value - the default value
 * @param type - the option's shown type (`bytes` gets units)
 */
export function formatDefault(value: unknown, type: string): string {
  if (value === undefined) return '—';
  if (typeof value === 'number' && type === 'bytes') {
    if (value >= MIB && value % MIB === 0) return `${value / MIB} MiB`;
    if (value >= KIB && value % KIB === 0) return `${value / KIB} KiB`;
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value) && value.length === 0) return '[]';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function typeOf(schema: z.ZodType): string {
  const meta = optionMeta(schema);
  if (meta.type) return meta.type;
  const def = defOf(baseOf(schema));
  if (def.type === 'enum')
    return Object.values(def.entries ?? {})
      .map((v) => JSON.stringify(v))
      .join(' | ');
  if (def.type === 'literal')
    return JSON.stringify((def as unknown as { values: unknown[] }).values[0]);
  if (def.type === 'array') return 'array';
  if (def.type === 'custom') return 'object';
  return def.type;
}

function namesInside(schema: z.ZodType, source: 'env' | 'flag' | 'key'): string[] {
  const own = optionMeta(schema)[source];
  const inner = shapeOf(schema);
  const nested = inner ? Object.values(inner).flatMap((member) => namesInside(member, source)) : [];
  return [...(own === undefined ? [] : [own]), ...nested];
}

/**
 * The rows of a factory's options table, read from its schema: one per option, or per member of
 * an option whose metadata says `expand`.
 *
 * @param schema - a factory's options schema
 */
export function optionRows(schema: z.ZodType): OptionRow[] {
  const rows: OptionRow[] = [];
  const walk = (shape: Record<string, z.ZodType>, prefix: string) => {
    for (const [key, option] of Object.entries(shape)) {
      const meta = optionMeta(option);
      const inner = shapeOf(option);
      if (meta.expand && inner) {
        walk(inner, `${prefix}${key}.`);
        continue;
      }
      const type = typeOf(option);
      rows.push({
        name: `${prefix}${key}`,
        type,
        default: meta.defaultText ?? formatDefault(defaultOf(option)?.value, type),
        env: namesInside(option, 'env'),
        flags: namesInside(option, 'flag'),
        keys: namesInside(option, 'key'),
        description: meta.description ?? '',
      });
    }
  };
  walk(shapeOf(schema) ?? {}, '');
  return rows;
}
