/**
 * Where the store reports connection trouble and configuration warnings. The shape is a subset of
 * `@s2sp/server`'s `Logger`, so a server's logger can be passed as it is. Nothing logged holds a
 * token, a key or a Redis password.
 *
 * @module
 */

/** Structured fields of a log line. */
export type StoreLogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** The logger the store writes to (pino, winston or `@s2sp/server` loggers fit). */
export interface StoreLogger {
  info(message: string, fields?: StoreLogFields): void;
  warn(message: string, fields?: StoreLogFields): void;
  error(message: string, fields?: StoreLogFields): void;
}

function line(level: string, message: string, fields?: StoreLogFields): string {
  let text = `${level} [s2sp:cache-redis] ${message}`;
  for (const [key, value] of Object.entries(fields ?? {}))
    if (value !== undefined) text += ` ${key}=${String(value)}`;
  return text;
}

/**
 * The default logger: warnings and errors on standard error (through `console.error`, so a stdio
 * MCP server's standard output stays clean), information dropped.
 */
export const defaultStoreLogger: StoreLogger = {
  info() {},
  warn: (message, fields) => console.error(line('warn', message, fields)),
  error: (message, fields) => console.error(line('error', message, fields)),
};
