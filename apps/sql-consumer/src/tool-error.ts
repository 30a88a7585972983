import { S2SPError } from '@s2sp/core';

/** The `_meta` key of an S2SP tool error's stable code. */
export const ERROR_CODE_META = 's2sp/error-code';

/**
 * An MCP tool error result carrying the stable code in `_meta['s2sp/error-code']`, as every
 * S2SP tool answers a failure: an `S2SPError`'s message (written for the model) and code, or
 * `tool_error` with the message of anything else.
 *
 * TODO(lead): a copy of `toolErrorResult` from `@s2sp/core/internal` (and of its meta key): the
 * public API has no tool-error builder for tools registered with `registerTool` directly.
 * Export `toolErrorResult` and `ERROR_CODE_META` from `@s2sp/server` (or core's main entry).
 */
export function toolError(error: unknown): {
  isError: true;
  content: { type: 'text'; text: string }[];
  _meta: Record<string, unknown>;
} {
  const message = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [ERROR_CODE_META]: S2SPError.isInstance(error) ? error.code : 'tool_error' },
  };
}
