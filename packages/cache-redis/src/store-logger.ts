import type { LogFields, Logger } from '@s2sp/core';
/**
 * Where the store reports connection trouble and configuration warnings. The shape is the S2SP
 * `Logger` of `@s2sp/core` without `debug`, so any S2SP logger can be passed as it is. Nothing
 * logged holds a token, a key or a Redis password.
 *
 * @module
 */

/** Structured fields of a log line (the S2SP `LogFields`). */
export type StoreLogFields = LogFields;

/** The logger the store writes to (pino, winston or `@s2sp/server` loggers fit). */
export type StoreLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

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
