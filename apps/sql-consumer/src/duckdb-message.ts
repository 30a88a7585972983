/** Longest DuckDB message quoted back to the model. */
const MAX_MESSAGE_CHARS = 600;

/**
 * DuckDB's error message, labelled as DuckDB's and fenced in «», cut to a few hundred
 * characters: it can quote the model's SQL and values from the loaded tables (foreign data), so
 * it is never passed on as if it were this server's own words.
 *
 * @param error - what DuckDB threw
 */
export function duckdbMessage(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const text = raw.length > MAX_MESSAGE_CHARS ? `${raw.slice(0, MAX_MESSAGE_CHARS)}…` : raw;
  return `DuckDB said: «${text.trim()}».`;
}
