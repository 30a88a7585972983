/**
 * The optional `--config` file, in JSON or YAML: any setting with a file key (see `--help` or
 * the proxy README), such as
 *
 * ```yaml
 * tableTools:
 *   - query                     # a name
 *   - search:/results           # NAME:POINTER
 *   - { name: list_issues, pointer: /items }
 *   - { name: export_csv, format: csv }       # or export_csv:csv; formats: TABLE_FORMATS (tables/detect/text-formats.ts)
 * excludeTools: [get_file]
 * detect: true
 * authTokens: [a-long-random-token-0123]   # HTTP edge: as S2SP_AUTH_TOKENS / --auth-token
 * allowedHosts: [mcp.example.com]          # as S2SP_ALLOWED_HOSTS / --allowed-host
 * ```
 *
 * Its keys are read with the flags and the environment by `readSettings`; a flag wins over it.
 *
 * @module
 */
import type { SettingsSources } from '@s2sp/core/options';
import { configError } from '@s2sp/core/options';
import { parse as parseYaml } from 'yaml';
import { parseTableToolRule } from '../tables/table-tool-rule.js';
import { type RegularFileRead, readRegularFile } from './regular-file.js';

const RULE_KEYS = ['name', 'pointer', 'format'];

/** A `tableTools` entry as a rule: `"NAME[:POINTER][:FORMAT]"` or `{ name, pointer?, format? }`. */
function tableToolEntry(entry: unknown, where: string): unknown {
  if (typeof entry === 'string') return parseTableToolRule(where, entry);
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
  const record = entry as Record<string, unknown>;
  const parts = [record.name, record.pointer, record.format];
  if (
    Object.keys(record).some((key) => !RULE_KEYS.includes(key)) ||
    parts.some((part) => part !== undefined && typeof part !== 'string')
  )
    throw configError(
      where,
      'each entry is "name[:/pointer][:format]" or { name, pointer, format }.',
    );
  return parseTableToolRule(where, parts.filter((part) => part !== undefined).join(':'));
}

/** The largest `--config` file read: a settings file is a few hundred bytes. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/**
 * The text of the `--config` file: a regular file (a link to one is followed) of at most
 * {@link MAX_CONFIG_FILE_BYTES}, read by the guard `--state` uses too, so that a FIFO or a device
 * never holds or floods the start.
 *
 * @param path - the path given to `--config`
 * @throws S2SPError `invalid_config` naming `--config`, never quoting the file
 */
export function readConfigFile(path: string): string {
  let file: RegularFileRead;
  try {
    file = readRegularFile(path, MAX_CONFIG_FILE_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw configError('--config', `cannot read ${path}${code ? ` (${code})` : ''}.`);
  }
  if (file.kind === 'missing') throw configError('--config', `${path} does not exist.`);
  if (file.kind === 'not-regular')
    throw configError(
      '--config',
      `${path} is ${file.what}, not a regular file. Give the path of a JSON or YAML settings file.`,
    );
  if (file.kind === 'too-large')
    throw configError(
      '--config',
      `${path} is larger than ${MAX_CONFIG_FILE_BYTES / 1024 / 1024} MiB: it cannot be a settings file. Give the path of a JSON or YAML settings file.`,
    );
  return file.bytes.toString('utf8');
}

/**
 * Parses a config file's text (YAML is a superset of JSON, so one parser reads both) into the
 * file source of `readSettings`, with its table tools in the options' form.
 *
 * @param text - the file's contents
 * @param source - its name, for error messages
 * @throws S2SPError `invalid_config` (see `configError`) naming the file, or the file and the key
 */
export function parseConfigFile(
  text: string,
  source: string,
): NonNullable<SettingsSources['file']> {
  let document: unknown;
  try {
    // `logLevel: 'error'`: yaml's warnings (an unknown tag or directive) would print the line.
    document = parseYaml(text, { logLevel: 'error' });
  } catch (error) {
    // Where and what kind, never yaml's message: it quotes the text, and a path given by
    // mistake may be a secret's (a link to a key file).
    const { code, linePos } = error as {
      code?: unknown;
      linePos?: [{ line: number; col: number }];
    };
    const where = linePos ? ` at line ${linePos[0].line}, column ${linePos[0].col}` : '';
    throw configError(
      source,
      `is not valid JSON or YAML${where}${typeof code === 'string' ? ` (${code})` : ''}. Check that --config names the settings file.`,
    );
  }
  document ??= {};
  if (typeof document !== 'object' || Array.isArray(document))
    throw configError(source, 'must be an object of settings, such as { tableTools: [query] }.');
  const settings = { ...(document as Record<string, unknown>) };
  if (Array.isArray(settings.tableTools)) {
    const where = `${source}: tableTools`;
    settings.tableTools = settings.tableTools.map((entry) => tableToolEntry(entry, where));
  }
  return { name: source, document: settings };
}
