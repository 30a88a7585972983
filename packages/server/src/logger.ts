import type { LogFields, Logger } from '@s2sp/core';
/**
 * Logging. S2SP never logs a token or a full `resource_url`; entries are named by the first
 * characters of their storage key (a SHA-256 of the token), which cannot be redeemed.
 *
 * @module
 */

/** A logger that drops everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The levels, lowest first: the one list `LOG_LEVEL` and `--log-level` are checked against. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** Severity, lowest first. */
export type LogLevel = (typeof LOG_LEVELS)[number];

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Options for {@link createConsoleLogger}. */
export interface ConsoleLoggerOptions {
  /** Lowest level written. Default `info`. */
  readonly level?: LogLevel;
  /**
   * Where lines go. Default: standard error, so a stdio MCP server's standard output stays
   * reserved for the protocol.
   */
  readonly write?: (line: string) => void;
  /** A prefix for every line, such as the server's name. */
  readonly name?: string;
}

/**
 * A logger that writes one line per entry: `time level [name] message key=value …`.
 *
 * @param options - level, destination and name
 */
export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const prefix = options.name ? ` [${options.name}]` : '';
  const emit = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: LogFields) => {
    if (ORDER[level] < threshold) return;
    let line = `${new Date().toISOString()} ${level}${prefix} ${message}`;
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        if (value !== undefined)
          line += ` ${key}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value)}`;
      }
    }
    write(line);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** How log lines name a stored entry: the start of its storage key, never the token. */
export function entryLabel(storageKey: string): string {
  return storageKey.slice(0, 12);
}
