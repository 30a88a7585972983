import type { z } from 'zod';
import { S2SPError } from '../errors.js';
import { defOf, layersOf, optionMeta, shapeOf } from './option-meta.js';

/** Who is parsing, for {@link parseOptions}'s error. */
export interface ParseOptionsContext {
  /** The factory whose options these are (`createS2SP`), named in the error. */
  readonly factory: string;
  /**
   * What to call an option in the error, by its path (`requestBodyTimeoutMs`,
   * `consumer.timeoutMs`): an environment variable, a flag or a file's key. The error's
   * `data.variable` is then that name too.
   */
  readonly names?: Readonly<Record<string, string>>;
}

/** The schema of the option at `path` inside `schema`, if the path leads to one. */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    if (!current) return undefined;
    if (typeof key === 'number') {
      const array: ReturnType<typeof defOf> | undefined = layersOf(current)
        .map(defOf)
        .find((def) => def.type === 'array');
      current = array?.element;
    } else {
      current = shapeOf(current)?.[String(key)];
    }
  }
  return current;
}

/** The option an issue is about: its path without list positions (`allowedHosts`, `auth.bearerTokens`). */
function optionPath(path: readonly PropertyKey[]): string {
  return path
    .filter((key) => typeof key !== 'number')
    .map(String)
    .join('.');
}

function shownPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) =>
      typeof key === 'number' ? `[${key}]` : `${index > 0 ? '.' : ''}${String(key)}`,
    )
    .join('');
}

/**
 * What the issue says is wrong, never the value given: options hold bearer tokens and URLs with
 * credentials, and this message ends up in logs.
 */
function complaint(
  issue: z.core.$ZodIssue,
  option: z.ZodType | undefined,
  missing: boolean,
): string {
  const allowed = option ? optionMeta(option).allowed : undefined;
  // A refinement's own sentence; zod's generic one only when the option says nothing better.
  if (issue.code === 'custom' && !(allowed && issue.message === 'Invalid input'))
    return issue.message;
  if (missing) return allowed ? `is required: give ${allowed}` : 'is required';
  if (allowed) return `must be ${allowed}`;
  if ((issue.code === 'too_small' || issue.code === 'too_big') && issue.origin === 'string')
    return `must be ${issue.code === 'too_small' ? 'at least' : 'at most'} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)} characters long`;
  if (issue.code === 'invalid_value')
    return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
  if (issue.code === 'invalid_type')
    return `must be ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}`;
  return issue.message.replace(/^Invalid input: /, 'must be valid: ');
}

/**
 * Validates a factory's options once, against the factory's schema, and applies its defaults:
 * the one place an option is checked. The error names the option's path and what it may be.
 *
 * @param schema - the factory's options schema (built from the kinds in `@s2sp/core/options`)
 * @param input - the options as given (`undefined` counts as `{}`)
 * @param context - the factory's name, and other names for options read from elsewhere
 * @returns the options with defaults applied
 * @throws S2SPError `invalid_config` whose `data.option` is the option's path (and
 *   `data.variable` the name from `context.names`, when one is given)
 * @example
 * ```ts
 * const MemoryStoreOptionsSchema = z.object({ maxEntries: positiveInteger().default(100_000) });
 * const { maxEntries } = parseOptions(MemoryStoreOptionsSchema, options, { factory: 'createMemoryStore' });
 * ```
 */
export function parseOptions<TSchema extends z.ZodType>(
  schema: TSchema,
  input: unknown,
  context: ParseOptionsContext,
): z.output<TSchema> {
  const result = schema.safeParse(input === undefined ? {} : input);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  if (!issue) throw new S2SPError('invalid_config', `${context.factory}: invalid options.`);
  throw optionError(schema, issue, context, valueAt(input, issue.path) === undefined);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * The name given for `option`, or for the option around it (`auth` for `auth.realm`), or for the
 * one option inside it (`auth.bearerTokens` for a rule of `auth` as a whole).
 */
function nameFor(names: Readonly<Record<string, string>>, option: string): string | undefined {
  const keys = Object.keys(names);
  const around = keys.filter((key) => option === key || option.startsWith(`${key}.`));
  const longest = around.sort((a, b) => b.length - a.length)[0];
  if (longest !== undefined) return names[longest];
  const inside = keys.filter((key) => key.startsWith(`${option}.`));
  return inside.length === 1 ? names[inside[0] as string] : undefined;
}

/**
 * The `invalid_config` error for the first thing wrong with a factory's options.
 *
 * @param schema - the whole options schema, to find what the option at fault allows
 * @param issue - zod's first issue
 * @param context - the factory, and other names of the options
 * @param missing - whether the option was not given at all
 */
export function optionError(
  schema: z.ZodType,
  issue: z.core.$ZodIssue,
  context: ParseOptionsContext,
  missing: boolean,
): S2SPError {
  const option = optionPath(issue.path);
  if (option === '') {
    return new S2SPError(
      'invalid_config',
      issue.code === 'custom'
        ? `${context.factory}: ${issue.message}.`
        : `${context.factory} needs an options object.`,
      { data: { option: 'options' } },
    );
  }
  const text = complaint(issue, schemaAt(schema, issue.path), missing);
  const variable = context.names ? nameFor(context.names, option) : undefined;
  const message =
    variable === undefined
      ? `${context.factory}: option ${shownPath(issue.path)} ${text}.`
      : `${variable}: ${text}.`;
  return new S2SPError('invalid_config', message, {
    data: variable === undefined ? { option } : { option, variable },
  });
}
