import { S2SPError } from '../errors.js';

/**
 * A setting that cannot work: an {@link S2SPError} `invalid_config` whose message starts with the
 * variable's name and whose `data.variable` names it, so a start-up script can point at it.
 *
 * @param variable - the environment variable, command-line option or option at fault
 * @param message - what is wrong and what would work
 */
export function configError(variable: string, message: string): S2SPError {
  return new S2SPError('invalid_config', `${variable}: ${message}`, { data: { variable } });
}

/** The variable or option an `invalid_config` error from {@link configError} names, if any. */
export function configErrorVariable(error: unknown): string | undefined {
  if (!S2SPError.isInstance(error) || error.code !== 'invalid_config') return undefined;
  const variable = error.data?.variable;
  return typeof variable === 'string' ? variable : undefined;
}
