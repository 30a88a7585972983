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
import { configError } from '@s2sp/server/env';
import { parse as parseYaml } from 'yaml';
import { parseTableToolRule } from '../tables/table-tool-rule.js';

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
    document = parseYaml(text);
  } catch (error) {
    throw configError(
      source,
      `is not valid JSON or YAML: ${(error as Error).message.split('\n')[0]}`,
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
