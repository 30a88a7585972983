import type { z } from 'zod';
import { baseOf, defOf, type OptionMeta, optionMeta, shapeOf } from './option-meta.js';
import { optionError, type ParseOptionsContext } from './parse-options.js';

/** Where a setting comes from: an environment variable, a command-line flag or a file's key. */
export type OptionSource = 'env' | 'flag' | 'key';

/** How a setting's text becomes a value: by the type of the option it sets. */
export type SettingKind = 'list' | 'number' | 'boolean' | 'text';

/** One option that a source can set, found by {@link optionSettings}. */
export interface OptionSetting {
  /** The option's path in the options object (`auth.bearerTokens`). */
  readonly path: string;
  /** Its name in the source (`S2SP_AUTH_TOKENS`, `--auth-token`, `authTokens`). */
  readonly name: string;
  /** The option's schema: the one rule its value is checked by. */
  readonly schema: z.ZodType;
  /** How text becomes its value. */
  readonly kind: SettingKind;
}

function kindOf(schema: z.ZodType): SettingKind {
  const type = defOf(baseOf(schema)).type;
  if (type === 'array') return 'list';
  if (type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  return 'text';
}

/**
 * Every option of `schema` (nested objects included) that `source` can set, by the names in
 * their metadata (`.meta({ env: 'S2SP_BODY_TIMEOUT_MS' })`).
 *
 * @param schema - a factory's options schema
 * @param source - which name to read
 */
export function optionSettings(schema: z.ZodType, source: OptionSource): OptionSetting[] {
  const settings: OptionSetting[] = [];
  const walk = (shape: Record<string, z.ZodType>, prefix: string) => {
    for (const [key, option] of Object.entries(shape)) {
      const path = `${prefix}${key}`;
      const name = (optionMeta(option) as OptionMeta)[source];
      if (name !== undefined) settings.push({ path, name, schema: option, kind: kindOf(option) });
      const inner = shapeOf(option);
      if (inner) walk(inner, `${path}.`);
    }
  };
  walk(shapeOf(schema) ?? {}, '');
  return settings;
}

const YES = ['1', 'true', 'yes', 'on'];
const NO = ['0', 'false', 'no', 'off'];

/**
 * A setting's text as the value of its option: a list is comma-separated, a number decimal, a
 * switch one of `1 true yes on 0 false no off`. Text that is none of these is passed on as it is,
 * for the option's own rule to refuse.
 *
 * @param text - the text, trimmed
 * @param kind - the option's {@link SettingKind}
 */
export function settingFromText(text: string, kind: SettingKind): unknown {
  if (kind === 'list')
    return text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  if (kind === 'number') return /^\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  if (kind === 'boolean') {
    const lower = text.toLowerCase();
    if (YES.includes(lower)) return true;
    if (NO.includes(lower)) return false;
  }
  return text;
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node[key] = typeof next === 'object' && next !== null ? next : {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

/** What {@link readSettings} found. */
export interface SettingsRead {
  /** The options the source set, checked by their own rules; nothing else (no defaults). */
  readonly options: Record<string, unknown>;
  /** The source's name of each option it set, by the option's path. */
  readonly names: Readonly<Record<string, string>>;
}

/**
 * Reads the options a source sets: for each option with a name for `source`, `read` gives its
 * value (`undefined` when unset), which is checked by the option's own rule. Only options the
 * source set are returned, so a caller can spread them over others.
 *
 * @param schema - a factory's options schema
 * @param source - which names to read by
 * @param read - the value of one setting, or `undefined`
 * @param context - the factory, for the error; option names default to the source's
 * @throws S2SPError `invalid_config` naming the setting (`data.variable`) and the option (`data.option`)
 */
export function readSettings(
  schema: z.ZodType,
  source: OptionSource,
  read: (setting: OptionSetting) => unknown,
  context: ParseOptionsContext,
): SettingsRead {
  const options: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  for (const setting of optionSettings(schema, source)) {
    const value = read(setting);
    if (value === undefined) continue;
    const result = setting.schema.safeParse(value);
    const name = context.names?.[setting.path] ?? setting.name;
    if (!result.success) {
      const [issue] = result.error.issues;
      if (issue)
        throw optionError(
          schema,
          { ...issue, path: [...setting.path.split('.'), ...issue.path] },
          { ...context, names: { ...context.names, [setting.path]: name } },
          false,
        );
    }
    setAt(options, setting.path, result.data);
    names[setting.path] = name;
  }
  return { options, names };
}

/** An environment, such as `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The options the environment sets, by each option's `env` name; a blank variable counts as
 * unset. See {@link readSettings}.
 *
 * @param schema - a factory's options schema
 * @param env - the environment (`process.env`)
 * @param context - the factory, for the error
 * @throws S2SPError `invalid_config` naming the variable
 */
export function optionsFromEnv(
  schema: z.ZodType,
  env: Env,
  context: ParseOptionsContext,
): SettingsRead {
  return readSettings(
    schema,
    'env',
    (setting) => {
      const text = env[setting.name]?.trim();
      if (text === undefined || text === '') return undefined;
      const value = settingFromText(text, setting.kind);
      return Array.isArray(value) && value.length === 0 ? undefined : value;
    },
    context,
  );
}

/**
 * The options command-line flags set, by each option's `flag` name: a list option takes every
 * occurrence of its flag, any other the last. See {@link readSettings}.
 *
 * @param schema - a factory's options schema
 * @param flags - each flag's values, in order
 * @param context - the factory, for the error
 * @throws S2SPError `invalid_config` naming the flag
 */
export function optionsFromFlags(
  schema: z.ZodType,
  flags: ReadonlyMap<string, readonly string[]>,
  context: ParseOptionsContext,
): SettingsRead {
  return readSettings(
    schema,
    'flag',
    (setting) => {
      const values = flags.get(setting.name);
      if (values === undefined || values.length === 0) return undefined;
      if (setting.kind === 'list') return values;
      return settingFromText(values.at(-1) as string, setting.kind);
    },
    context,
  );
}

/**
 * The options a configuration file sets, by each option's `key` name; its values are already
 * typed (JSON, YAML). See {@link readSettings}.
 *
 * @param schema - a factory's options schema
 * @param document - the file's top-level object
 * @param context - the factory; errors name the key as `<file>: <key>` when `file` is given
 * @throws S2SPError `invalid_config` naming the key
 */
export function optionsFromFile(
  schema: z.ZodType,
  document: Readonly<Record<string, unknown>>,
  context: ParseOptionsContext & { readonly file?: string },
): SettingsRead {
  const names: Record<string, string> = {};
  for (const setting of optionSettings(schema, 'key'))
    names[setting.path] = context.file ? `${context.file}: ${setting.name}` : setting.name;
  return readSettings(schema, 'key', (setting) => document[setting.name], {
    ...context,
    names: { ...names, ...context.names },
  });
}
