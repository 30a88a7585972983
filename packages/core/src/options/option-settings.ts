import type { z } from 'zod';
import { S2SPError } from '../errors.js';
import { nearest, nearestName, variableSlip } from './near-names.js';
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

/** One option a source set: its checked value and the source's name for it. */
interface SetOption {
  readonly value: unknown;
  readonly name: string;
}

/**
 * The options one source sets: for each option with a name for `source`, `read` gives its value
 * (`undefined` when unset), which is checked by the option's own rule.
 */
function readSource(
  schema: z.ZodType,
  source: OptionSource,
  read: (setting: OptionSetting) => unknown,
  context: ParseOptionsContext,
  shown: (name: string) => string = (name) => name,
): Map<string, SetOption> {
  const set = new Map<string, SetOption>();
  for (const setting of optionSettings(schema, source)) {
    const value = read(setting);
    if (value === undefined) continue;
    const name = shown(setting.name);
    const result = setting.schema.safeParse(value);
    if (!result.success) {
      const [issue] = result.error.issues;
      if (issue)
        throw optionError(
          schema,
          { ...issue, path: [...setting.path.split('.'), ...issue.path] },
          { ...context, names: { [setting.path]: name } },
          false,
        );
    }
    // A variable that lists nothing, for a list that may be empty: unset, as blank text is.
    if (source === 'env' && Array.isArray(result.data) && result.data.length === 0) continue;
    set.set(setting.path, { value: result.data, name });
  }
  return set;
}

/** Where {@link readSettings} looks: any of a command line, a configuration file, an environment. */
export interface SettingsSources {
  /** Each command-line flag's values, in order (`--auth-token` → its values). */
  readonly flags?: ReadonlyMap<string, readonly string[]>;
  /**
   * A configuration file's top-level object (JSON, YAML: already typed) and its name for errors.
   * A key no option names is refused, so a misspelt key is not silently ignored.
   */
  readonly file?: {
    readonly name: string;
    readonly document: Readonly<Record<string, unknown>>;
  };
  /**
   * An environment, such as `process.env`; a blank variable counts as unset, and so does a list
   * variable that lists nothing (`","`), unless its option refuses an empty list
   * (`stringList(item, { nonEmpty })`): then the variable is refused, as an empty list from a
   * file or a flag is.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What {@link readSettings} found. */
export interface SettingsRead<TOptions = Record<string, unknown>> {
  /** The options the sources set, each checked by its own rule; nothing else (no defaults). */
  readonly options: Partial<TOptions>;
  /** The name of each option's setting that won (`--ttl`, `p.yaml: bodyTimeoutMs`), by path. */
  readonly names: Readonly<Record<string, string>>;
}

function fromEnv(env: NonNullable<SettingsSources['env']>) {
  return (setting: OptionSetting): unknown => {
    const text = env[setting.name]?.trim();
    if (text === undefined) return undefined;
    // A list variable that is set gives its list even when it lists nothing (`""`, `","`, `" "`),
    // so that a list that must not be empty (bearer tokens) refuses it by its own rule, as it
    // refuses a file's `[]`; readSource drops it for every other list. Blank text is unset.
    if (setting.kind === 'list') return settingFromText(text, setting.kind);
    return text === '' ? undefined : settingFromText(text, setting.kind);
  };
}

function fromFlags(flags: NonNullable<SettingsSources['flags']>) {
  return (setting: OptionSetting): unknown => {
    const values = flags.get(setting.name);
    if (values === undefined || values.length === 0) return undefined;
    // A list option's flag repeats; any other takes its last value.
    if (setting.kind === 'list') return values;
    return settingFromText(values.at(-1) as string, setting.kind);
  };
}

function checkKeys(
  schema: z.ZodType,
  file: NonNullable<SettingsSources['file']>,
  context: ParseOptionsContext,
): void {
  const keys = optionSettings(schema, 'key').map((setting) => setting.name);
  const unknown = Object.keys(file.document).find((key) => !keys.includes(key));
  if (unknown === undefined) return;
  // A key is the file's own text: named only when it is a slip of a real key (so it cannot be
  // a secret of a file given by mistake), else left out.
  const meant = nearestName(unknown, keys);
  const variable = meant === undefined ? file.name : `${file.name}: ${unknown}`;
  throw new S2SPError(
    'invalid_config',
    meant === undefined
      ? `${variable}: a key no setting has, in ${context.factory}'s configuration file; the keys are ${keys.join(', ')}.`
      : `${variable}: unknown key in ${context.factory}'s configuration file; did you mean ${meant}? The keys are ${keys.join(', ')}.`,
    { data: { variable } },
  );
}

/**
 * Reads the options a schema's settings set, from every source given, with one precedence: a
 * command-line flag wins over the configuration file, the file over the environment, and the
 * schema's default (applied later, by the factory's `parseOptions`) over nothing. Each option is
 * found by the names in its metadata (`.meta({ env, flag, key })`) and checked by its own rule,
 * so an error names the setting at fault (`--ttl`, `p.yaml: bodyTimeoutMs`, `S2SP_TTL_SECONDS`).
 * Only options a source set are returned, ready to spread into a factory's options.
 *
 * @param schema - the options schema whose settings to read
 * @param sources - the flags, file and environment to read
 * @param context - the program reading them, for the error
 * @throws S2SPError `invalid_config` whose `data.variable` is the setting and `data.option` the option
 * @example
 * ```ts
 * const { options } = readSettings(S2SPOptionsSchema, { env: process.env }, { factory: 'my-server' });
 * const s2sp = createS2SP({ ...options, store });
 * ```
 */
export function readSettings<TSchema extends z.ZodType>(
  schema: TSchema,
  sources: SettingsSources,
  context: ParseOptionsContext,
): SettingsRead<z.output<TSchema>> {
  const { env, file, flags } = sources;
  if (file) checkKeys(schema, file, context);
  const found = new Map<string, SetOption>();
  // Lowest precedence first: each later source overwrites what it sets.
  const layers = [
    env && readSource(schema, 'env', fromEnv(env), context),
    file &&
      readSource(
        schema,
        'key',
        (setting) => file.document[setting.name],
        context,
        (name) => `${file.name}: ${name}`,
      ),
    flags && readSource(schema, 'flag', fromFlags(flags), context),
  ];
  for (const layer of layers) for (const [path, set] of layer ?? []) found.set(path, set);
  const options: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  for (const [path, { value, name }] of found) {
    setAt(options, path, value);
    names[path] = name;
  }
  return { options: options as Partial<z.output<TSchema>>, names };
}

/** A variable that looks like a setting's but is no setting's: what was set and what was meant. */
export interface MisspeltVariable {
  /** The variable as set (`S2SP_AUTH_TOKEN`). */
  readonly variable: string;
  /** The setting's variable it is nearest to (`S2SP_AUTH_TOKENS`). */
  readonly meant: string;
  /** One line for the start-up log, naming both (never the value). */
  readonly message: string;
}

/**
 * The variables of `env` that look like a setting's but are no setting's, each with the name it
 * is nearest to, for a warning at start: a misspelt `S2SP_AUTH_TOKEN` would otherwise leave the
 * server without the authentication its operator meant to give it. The settings' names come from
 * the schemas' metadata (`.meta({ env })`), so the list is never written by hand: pass every
 * schema the program reads its environment with, so that none of its own names is reported.
 *
 * @param env - the environment (`process.env`)
 * @param schemas - the settings schemas the program reads
 * @returns the slips, in the environment's order; empty when there are none
 * @example
 * ```ts
 * for (const slip of misspeltVariables(process.env, [AppSettingsSchema])) logger.warn(slip.message);
 * ```
 */
export function misspeltVariables(
  env: Readonly<Record<string, string | undefined>>,
  schemas: readonly z.ZodType[],
): MisspeltVariable[] {
  const known = [
    ...new Set(
      schemas.flatMap((schema) => optionSettings(schema, 'env').map((setting) => setting.name)),
    ),
  ];
  const slips: MisspeltVariable[] = [];
  for (const variable of Object.keys(env)) {
    if (env[variable] === undefined || known.includes(variable)) continue;
    const meant = nearest(variable, known, variableSlip);
    if (meant !== undefined)
      slips.push({
        variable,
        meant,
        message: `${variable} is not a setting; did you mean ${meant}? It is ignored.`,
      });
  }
  return slips;
}
