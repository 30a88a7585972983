import { S2SPError } from '../errors.js';

/** Options for {@link positiveOption}. @deprecated Use a schema and `parseOptions`. */
export interface PositiveOptionRules {
  /** Require a whole number (`Number.isSafeInteger`). Default false. */
  readonly integer?: boolean;
}

/**
 * Reads a numeric option that must be positive: the one rule behind every size, count, time and
 * budget setting in the S2SP packages, so each refuses a bad value with the same error.
 *
 * @param name - the option's name, as the caller wrote it (`maxSyncBytes`)
 * @param value - the value given, or `undefined` for "use the default"
 * @param fallback - the default
 * @param rules - whether it must be a whole number
 * @returns `value`, or `fallback` when `value` is `undefined`
 * @throws S2SPError `invalid_config` naming the option and the value
 */
export function positiveOption(
  name: string,
  value: number | undefined,
  fallback: number,
  rules: PositiveOptionRules = {},
): number {
  if (value === undefined) return fallback;
  const valid =
    typeof value === 'number' &&
    (rules.integer ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
    value > 0;
  if (!valid) {
    throw new S2SPError(
      'invalid_config',
      `${name} must be a positive ${rules.integer ? 'whole number' : 'number'}, got ${String(value)}.`,
      { data: { option: name } },
    );
  }
  return value;
}
