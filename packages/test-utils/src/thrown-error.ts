/**
 * Runs `run` and returns the `code` and `data` of the error it throws: the stable parts of an
 * `S2SPError` (its class is not imported here, so every package's tests can use this). Fails
 * when `run` throws something without a string `code`, or nothing at all.
 *
 * @param run - the call expected to throw
 */
export function codeAndDataOf(run: () => unknown): [string, unknown] {
  try {
    run();
  } catch (error) {
    const { code, data } = (error ?? {}) as { code?: unknown; data?: unknown };
    if (typeof code === 'string') return [code, data];
    throw error;
  }
  throw new Error('no error');
}

/**
 * Runs `run` and returns the string `code` of the error it throws (an `S2SPError`'s stable code),
 * or `undefined` when it throws nothing, so good input and bad input are asserted the same way.
 * Something thrown without a string code comes back as `not an S2SP error: …`, which no
 * expected code equals.
 *
 * @param run - the call under test
 */
export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' ? code : `not an S2SP error: ${String(error)}`;
  }
  return undefined;
}
