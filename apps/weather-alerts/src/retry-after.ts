/**
 * Reads an HTTP `Retry-After` header (RFC 9110 §10.2.3): either a number of seconds or an
 * HTTP date.
 *
 * @param value - the header value, or `null` when absent
 * @param now - the current time in milliseconds (a parameter so that tests need no clock)
 * @returns the wait in milliseconds (0 for a date in the past), or `undefined` when the header is
 *   absent or unreadable
 */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates always end in "GMT". Requiring it stops Date.parse's lenient guessing from turning
  // arbitrary text (such as "1.5" or "soon 2030") into a wait.
  if (!/GMT$/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
