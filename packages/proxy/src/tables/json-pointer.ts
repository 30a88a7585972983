import { S2SPError } from '@s2sp/core';
/**
 * JSON Pointers (RFC 6901), which name where in a tool result the rows are
 * (`--table-tool search:/results`).
 *
 * @module
 */

/**
 * Splits a JSON Pointer into its reference tokens.
 *
 * @param pointer - `""` (the whole document) or `/a/b~1c`
 * @throws S2SPError `invalid_config` when it does not start with "/"
 */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new S2SPError(
      'invalid_config',
      `${JSON.stringify(pointer)} is not a JSON Pointer: it must be empty or start with "/", such as "/rows".`,
    );
  }
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Builds the pointer of one member name. */
export function pointerTo(key: string): string {
  return `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * The value a pointer names, or `undefined` when any step is missing. Only own members count,
 * so `/__proto__` or `/constructor` never reach into prototypes.
 */
export function resolveJsonPointer(document: unknown, tokens: readonly string[]): unknown {
  let value = document;
  for (const token of tokens) {
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      value = value[Number(token)];
    } else if (typeof value === 'object' && value !== null && Object.hasOwn(value, token)) {
      value = (value as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return value;
}
