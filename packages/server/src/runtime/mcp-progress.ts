import type { FetchBodyOptions } from '@s2sp/core';
import type { ToolExtra } from '../mcp-sdk.js';

/** A data-plane fetch's progress callback (`FetchBodyOptions.onProgress`). */
export type FetchProgressCallback = NonNullable<FetchBodyOptions['onProgress']>;

/**
 * MCP progress for long work in a tool call: when the client sent a `progressToken` in the
 * request's `_meta`, the returned callback sends `notifications/progress` for it — `progress` in
 * bytes (strictly increasing, as MCP requires), `total` on the last one (equal to its
 * `progress`), and the rows so far in `message`. Without a token it returns `undefined`, and
 * nothing is sent. A notification that cannot be sent is dropped: progress never fails a call.
 *
 * @param extra - the tool handler's `extra`
 * @param what - what is being done, for `message` (`fetching the body`)
 */
export function mcpProgress(
  extra: Pick<ToolExtra, '_meta' | 'sendNotification'>,
  what: string,
): FetchProgressCallback | undefined {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let last = -1;
  return ({ bytes, rows, done }) => {
    // Reports come in order with bytes increasing; a repeat would break MCP's rule, so it is dropped.
    if (bytes <= last && !(done && last < 0)) return;
    last = bytes;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress: bytes,
          ...(done && { total: bytes }),
          message: `${what}: ${bytes} bytes, ${rows} rows${done ? '' : ' so far'}`,
        },
      })
      .catch(() => {});
  };
}
