/**
 * `@s2sp/core/options`: the toolkit every S2SP factory checks its options with. Each factory has
 * one zod schema of its options, built from the kinds below and documented on the schema itself
 * (`.describe()`, `.meta({ env, flag, key })`); {@link parseOptions} checks it once and applies
 * the defaults, {@link readSettings} reads what flags, a configuration file and the environment
 * set by its metadata, and {@link optionRows} lists it for a README.
 *
 * Adding a line here makes it public API.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { FetchBodyLimitsSchema } from './fetch/fetch-request.js';
export { configError, configErrorVariable } from './options/config-error.js';
export {
  byteSize,
  httpUrl,
  milliseconds,
  positiveInteger,
  positiveNumber,
  stringList,
} from './options/option-kinds.js';
export type { OptionMeta } from './options/option-meta.js';
export { optionRows } from './options/option-rows.js';
export {
  misspeltVariables,
  readSettings,
  type SettingsSources,
} from './options/option-settings.js';
export { parseOptions } from './options/parse-options.js';
