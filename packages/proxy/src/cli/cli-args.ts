/**
 * The `s2sp-proxy` command line, parsed by one pure function so every rule is unit-tested. Its
 * flags are the ones the settings schema names (`--ttl`, `--auth-token`, …), read later with the
 * file and the environment, and the few that are the command line's own: the upstream, the table
 * tools and the switches. `--help` is written from the same schema.
 *
 * @module
 */

import { configError, optionRows } from '@s2sp/core/options';
import { TABLE_FORMATS } from '../tables/detect/text-formats.js';
import { parseTableToolRule, type TableToolRule } from '../tables/table-tool-rule.js';
import type { UpstreamTarget } from '../upstream/upstream-target.js';
import { PROXY_VARIABLES, ProxySettingsSchema } from './proxy-settings.js';

/** What the command line says besides the settings: the upstream, table tools and switches. */
export interface CommandLine {
  readonly help: boolean;
  readonly version: boolean;
  /** Undefined only with `--help`/`--version`. */
  readonly upstream: UpstreamTarget | undefined;
  readonly stdio: boolean;
  /** `--table-tool`s, added to the config file's. */
  readonly tableTools: readonly TableToolRule[];
  /** `--exclude-tool`s, added to the config file's. */
  readonly excludeTools: readonly string[];
  /** `--no-detect`. */
  readonly noDetect: boolean;
  /** `--config FILE`. */
  readonly configFile: string | undefined;
  /** The flags of settings, with their values in order, for `readSettings`. */
  readonly flags: ReadonlyMap<string, readonly string[]>;
}

/** The settings' rows: their flags, keys, variables, defaults and descriptions. */
const ROWS = optionRows(ProxySettingsSchema);

/** The command line's own flags that take a value. */
const OWN_VALUE_FLAGS = [
  '--upstream-url',
  '--header',
  '--table-tool',
  '--exclude-tool',
  '--config',
];
const SWITCHES = new Set(['--stdio', '--no-detect', '--help', '-h', '--version']);
const VALUE_FLAGS = new Set([...OWN_VALUE_FLAGS, ...ROWS.flatMap((row) => row.flags)]);
/** Flags of yes/no settings: given alone they mean yes (`--shared-upstream`). */
const SWITCH_SETTINGS = new Set(
  ROWS.filter((row) => row.type === 'boolean').flatMap((row) => row.flags),
);
/** A yes/no setting's value, when it follows the flag as a word of its own. */
const SWITCH_WORDS = /^(1|0|true|false|yes|no|on|off)$/i;

const WIDTH = 100;
const INDENT = 29;

function placeholder(type: string): string {
  if (type === 'boolean') return '[true|false]';
  if (['integer', 'number', 'bytes', 'ms'].includes(type)) return '<n>';
  if (type === 'URL') return '<url>';
  if (type.includes('|')) return '<level>';
  return '<value>';
}

/** `text` wrapped to {@link WIDTH} columns after a first column of {@link INDENT}. */
function entry(first: string, text: string): string {
  const lines: string[] = [];
  let line = `  ${first}`.padEnd(INDENT - 1);
  if (line.length >= INDENT) {
    lines.push(line);
    line = ''.padEnd(INDENT - 1);
  }
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > WIDTH && line.trim() !== '') {
      lines.push(line);
      line = ''.padEnd(INDENT - 1);
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines.map((text) => text.trimEnd()).join('\n');
}

function settingLine(row: (typeof ROWS)[number]): string[] {
  const variables = row.env.filter((name) => PROXY_VARIABLES.has(name));
  const text = [
    row.description.replace(/`/g, '').replace(/\.?$/, '.'),
    row.default === '—' ? '' : `Default ${row.default.replace(/"/g, '')}.`,
    variables.length > 0 ? `Env ${variables.join(', ')}.` : '',
    row.keys.length > 0 ? `File key ${row.keys.join(', ')}.` : '',
  ].join(' ');
  return row.flags.map((flag) => entry(`${flag} ${placeholder(row.type)}`, text));
}

/** `--help` text: the command line's own flags, then every setting's, from its schema. */
export const USAGE: string = [
  `Usage: s2sp-proxy [options] -- <command> [args...]
       s2sp-proxy [options] --upstream-url <url>

S2SP in front of any MCP server. Tools that return tables gain abstract_domains and mode: the
model sees the columns it asks for, and consumers fetch the rest from the proxy's data plane.

Upstream (one of):`,
  entry(
    '-- <command> [args...]',
    'run an MCP server on stdio (restarted with backoff if it crashes)',
  ),
  entry('--upstream-url <url>', 'an MCP server on Streamable HTTP'),
  entry('--header "Name: value"', 'header for --upstream-url (repeatable), e.g. Authorization'),
  '\nDownstream and table tools:',
  entry('--stdio', 'serve MCP on stdin/stdout (the data plane still listens on --port)'),
  entry(
    '--table-tool <name>[:<json-pointer>][:<format>]',
    `treat a tool as a table tool from the start (repeatable); the pointer says where its rows are (search:/results), the format what they are in (${TABLE_FORMATS.join('|')})`,
  ),
  entry('--exclude-tool <name>', 'never give a tool S2SP parameters (repeatable)'),
  entry('--no-detect', 'only --table-tool tools and tools whose outputSchema declares rows'),
  entry(
    '--config <file>',
    `JSON or YAML with any of the keys ${ROWS.flatMap((row) => row.keys).join(', ')}; its lists add to the flags'`,
  ),
  '\nSettings (a flag wins over --config, which wins over the environment):',
  ...ROWS.flatMap(settingLine),
  '  The data plane (/s2sp/data/…) needs no bearer token: a resource_url is its own credential.',
  '\nOther:',
  entry('--help, --version', ''),
  '',
].join('\n');

/** The upstream's URL: any http(s) URL (it may carry credentials or a query), never echoed. */
function upstreamUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw configError('--upstream-url', 'must be an absolute http or https URL.');
  return text;
}

/**
 * Reads the command line (`process.argv.slice(2)`). Pure: no I/O. The settings' flags are only
 * collected here; `readSettings` checks them with the file and the environment.
 *
 * @throws S2SPError `invalid_config` (see `configError`) naming the option at fault
 */
export function parseCliArgs(argv: readonly string[]): CommandLine {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const values = new Map<string, string[]>();
  const switches = new Set<string>();
  for (let i = 0; i < own.length; i++) {
    const arg = own[i] ?? '';
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (SWITCHES.has(flag) && eq < 0) {
      switches.add(flag);
    } else if (SWITCH_SETTINGS.has(flag) && eq < 0) {
      const next = own[i + 1];
      const given = next !== undefined && SWITCH_WORDS.test(next);
      if (given) i++;
      values.set(flag, [...(values.get(flag) ?? []), given ? next : 'true']);
    } else if (VALUE_FLAGS.has(flag)) {
      const value = eq > 0 ? arg.slice(eq + 1) : own[++i];
      if (value === undefined) throw configError(flag, 'needs a value.');
      values.set(flag, [...(values.get(flag) ?? []), value]);
    } else {
      throw configError(
        arg,
        'unknown option (see s2sp-proxy --help). Put the upstream command after "--".',
      );
    }
  }
  const last = (flag: string) => values.get(flag)?.at(-1);
  const help = switches.has('--help') || switches.has('-h');
  const version = switches.has('--version');
  const stdio = switches.has('--stdio');

  const upstreamUrlText = last('--upstream-url');
  const headers: Record<string, string> = {};
  for (const header of values.get('--header') ?? []) {
    const colon = header.indexOf(':');
    const name = header.slice(0, Math.max(colon, 0)).trim();
    if (colon < 1 || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      throw configError(
        '--header',
        'must look like "Name: value", e.g. "Authorization: Bearer …".',
      );
    }
    headers[name] = header.slice(colon + 1).trim();
  }
  if (upstreamUrlText && command.length > 0) {
    throw configError(
      '--upstream-url',
      'give either --upstream-url or a command after "--", not both.',
    );
  }
  if (!upstreamUrlText && Object.keys(headers).length > 0) {
    throw configError('--header', 'only applies to --upstream-url.');
  }
  let upstream: UpstreamTarget | undefined;
  if (upstreamUrlText) {
    upstream = { kind: 'http', url: upstreamUrl(upstreamUrlText), headers };
  } else if (command.length > 0) {
    upstream = { kind: 'stdio', command: command[0] ?? '', args: command.slice(1) };
  } else if (!help && !version) {
    throw configError(
      'upstream',
      'no upstream MCP server: put its command after "--" (s2sp-proxy -- npx -y @modelcontextprotocol/server-postgres postgresql://…) or pass --upstream-url.',
    );
  }

  const flags = new Map<string, string[]>();
  for (const [flag, given] of values) if (!OWN_VALUE_FLAGS.includes(flag)) flags.set(flag, given);
  return {
    help,
    version,
    upstream,
    stdio,
    tableTools: (values.get('--table-tool') ?? []).map((t) =>
      parseTableToolRule('--table-tool', t),
    ),
    excludeTools: values.get('--exclude-tool') ?? [],
    noDetect: switches.has('--no-detect'),
    configFile: last('--config'),
    flags,
  };
}
