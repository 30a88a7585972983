/**
 * The logger interface every S2SP package writes to. Adapt your own logger (pino, winston,
 * console) to it. S2SP never logs a token or a full `resource_url`.
 *
 * @module
 */

/** Structured fields of a log line. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** Where S2SP packages log: four levels, a message and structured fields. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
