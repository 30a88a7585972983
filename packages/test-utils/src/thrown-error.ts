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
