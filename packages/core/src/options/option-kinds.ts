import { z } from 'zod';
import { normalizePublicUrl } from '../public-url.js';

/** Bounds of a numeric option. */
export interface OptionBounds {
  /** Smallest value allowed. Default: 1 for whole numbers; any number above 0 otherwise. */
  readonly min?: number;
  /** Largest value allowed. Default: `Number.MAX_SAFE_INTEGER`. */
  readonly max?: number;
}

function range(bounds: OptionBounds, whole: boolean, unit: string): string {
  const noun = whole ? `whole number${unit}` : `number${unit}`;
  if (bounds.max === undefined)
    return bounds.min === undefined ? `a positive ${noun}` : `a ${noun} of at least ${bounds.min}`;
  if (bounds.min === undefined && !whole) return `a positive ${noun} up to ${bounds.max}`;
  return `a ${noun} from ${bounds.min ?? (whole ? 1 : 0)} to ${bounds.max}`;
}

function wholeNumber(bounds: OptionBounds, unit: string, type: string): z.ZodNumber {
  return z
    .number()
    .int()
    .min(bounds.min ?? 1)
    .max(bounds.max ?? Number.MAX_SAFE_INTEGER)
    .meta({ allowed: range(bounds, true, unit), type });
}

/**
 * A count, budget or limit: a whole number, at least 1 unless `min` says otherwise.
 *
 * @param bounds - smallest and largest value
 * @example
 * ```ts
 * const schema = z.object({ maxEntries: positiveInteger().default(100_000) });
 * ```
 */
export function positiveInteger(bounds: OptionBounds = {}): z.ZodNumber {
  return wholeNumber(bounds, '', 'integer');
}

/**
 * A positive number that may have a fraction (seconds, ratios): finite and above 0, or within
 * `bounds`.
 *
 * @param bounds - smallest and largest value
 */
export function positiveNumber(bounds: OptionBounds = {}): z.ZodNumber {
  const base = z.number();
  return (bounds.min === undefined ? base.positive() : base.min(bounds.min))
    .max(bounds.max ?? Number.MAX_SAFE_INTEGER)
    .meta({ allowed: range(bounds, false, ''), type: 'number' });
}

/**
 * A size in bytes: a whole number, at least 1. The options table shows its default in KiB or MiB.
 *
 * @param bounds - smallest and largest value
 */
export function byteSize(bounds: OptionBounds = {}): z.ZodNumber {
  return wholeNumber(bounds, ' of bytes', 'bytes');
}

/**
 * A duration in milliseconds: a whole number, at least 1 unless `min` says otherwise.
 *
 * @param bounds - smallest and largest value
 */
export function milliseconds(bounds: OptionBounds = {}): z.ZodNumber {
  return wholeNumber(bounds, ' of milliseconds', 'ms');
}

const URL_ALLOWED =
  'an absolute http or https URL without credentials, query or fragment, such as https://data.example.com';

/**
 * A base URL (`publicUrl`, an upstream): parsed and normalised by core's `normalizePublicUrl`
 * (absolute http(s), no credentials, query or fragment, no trailing slash; a path is kept). A bad
 * value is reported without quoting it, since a URL may carry credentials.
 */
export function httpUrl(): z.ZodPipe<z.ZodString, z.ZodTransform<string, string>> {
  return z
    .string()
    .transform((value, context) => {
      try {
        return normalizePublicUrl(value);
      } catch {
        context.issues.push({ code: 'custom', message: `must be ${URL_ALLOWED}`, input: '' });
        return z.NEVER;
      }
    })
    .meta({ allowed: URL_ALLOWED, type: 'URL' });
}

/** What else a {@link stringList} asks of its entries as a whole. */
export interface StringListRules {
  /**
   * Refuse a list with no entries, from every source alike (an empty variable, a file's `[]`, a
   * flag with nothing in it, a factory's options). For a list whose emptiness would quietly turn
   * a protection off, such as bearer tokens: the sentence says what to do instead, and the
   * option's error is `lists nothing: <sentence>` (`give at least one token, or leave the
   * setting out to run without authentication`).
   */
  readonly nonEmpty?: string;
}

/**
 * A list of strings, each checked by `item` (any string by default). The environment gives it
 * comma-separated, the command line as a repeated flag.
 *
 * @param item - the rule of one entry
 * @param rules - what the list as a whole must be ({@link StringListRules})
 */
export function stringList<TItem extends z.ZodType<string, string> = z.ZodString>(
  item?: TItem,
  rules: StringListRules = {},
): z.ZodReadonly<z.ZodArray<TItem>> {
  const entry = (item ?? z.string()) as TItem;
  const allowed = (entry as unknown as { meta?: () => { allowed?: string } | undefined }).meta?.()
    ?.allowed;
  const { nonEmpty } = rules;
  const list = z.array(entry);
  return (
    nonEmpty === undefined
      ? list
      : list.refine((entries) => entries.length > 0, { message: `lists nothing: ${nonEmpty}` })
  )
    .readonly()
    .meta({ allowed: `a list of ${allowed ?? 'strings'}`, type: 'string[]' });
}
