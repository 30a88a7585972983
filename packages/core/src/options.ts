/**
 * `@s2sp/core/options`: the toolkit every S2SP factory checks its options with. Each factory has
 * one zod schema of its options, built from the kinds below and documented on the schema itself
 * (`.describe()`, `.meta({ env, flag })`); {@link parseOptions} checks it once and applies the
 * defaults, the environment and command-line readers map variables and flags by its metadata, and
 * {@link optionsTable} renders it for a README.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { FetchBodyLimitsSchema } from './fetch/fetch-request.js';
export {
  byteSize,
  httpUrl,
  milliseconds,
  type OptionBounds,
  positiveInteger,
  positiveNumber,
  stringList,
} from './options/option-kinds.js';
export type { OptionMeta } from './options/option-meta.js';
export {
  type Env,
  type OptionSetting,
  type OptionSource,
  optionSettings,
  optionsFromEnv,
  optionsFromFile,
  optionsFromFlags,
  readSettings,
  type SettingKind,
  type SettingsRead,
  settingFromText,
} from './options/option-settings.js';
export {
  formatDefault,
  type OptionRow,
  optionRows,
  optionsTable,
} from './options/options-table.js';
export { type ParseOptionsContext, parseOptions } from './options/parse-options.js';
