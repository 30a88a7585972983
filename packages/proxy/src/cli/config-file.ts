/**
 * The optional `--config` file: table tools, excluded tools, detection and the token budget, in
 * JSON or YAML (a command-line flag wins over the file).
 *
 * ```yaml
 * tableTools:
 *   - query                     # a name
 *   - search:/results           # NAME:POINTER
 *   - { name: list_issues, pointer: /items }
 *   - { name: export_csv, format: csv }       # or export_csv:csv; formats: TABLE_FORMATS (detect/text-formats.ts)
 * excludeTools: [get_file]
 * detect: true
 * tokenBudget: 8000            # a larger table tool response is paged
 * authTokens: [a-long-random-token-0123]   # HTTP edge: as S2SP_AUTH_TOKENS / --auth-token
 * allowedHosts: [mcp.example.com]          # as S2SP_ALLOWED_HOSTS / --allowed-host
 * allowedBrowserOrigins: [https://app.example.com]
 * bodyTimeoutMs: 10000                     # as S2SP_BODY_TIMEOUT_MS / --body-timeout-ms
 * ```
 *
 * @module
 */
import {
  configError,
  type EdgeEnvOptions,
  EdgeOptionsSchema,
  edgeOptionsFrom,
} from '@s2sp/server/env';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { S2SPProxyOptionsSchema } from '../proxy-options.js';
import { TABLE_FORMATS } from '../tables/detect/text-formats.js';
import { parseTableToolRule, type TableToolRule } from '../tables/table-tool-rule.js';

const ConfigFileSchema = z.strictObject({
  tableTools: z
    .array(
      z.union([
        z.string(),
        z.strictObject({
          name: z.string(),
          pointer: z.string().optional(),
          format: z.enum(TABLE_FORMATS).optional(),
        }),
      ]),
    )
    .optional(),
  excludeTools: z.array(z.string()).optional(),
  detect: z.boolean().optional(),
  // The options' own rules (without their defaults: the file sets only what it names).
  tokenBudget: S2SPProxyOptionsSchema.shape.tokenBudget.unwrap().optional(),
  authTokens: z.array(z.string()).optional(),
  allowedHosts: z.array(z.string()).optional(),
  allowedBrowserOrigins: z.array(z.string()).optional(),
  bodyTimeoutMs: EdgeOptionsSchema.shape.requestBodyTimeoutMs.unwrap().optional(),
});

/** What a config file sets. */
export interface ProxyConfigFile {
  readonly tableTools: readonly TableToolRule[];
  readonly excludeTools: readonly string[];
  readonly detect: boolean | undefined;
  readonly tokenBudget: number | undefined;
  /** The HTTP edge settings the file gives (only those), checked by the edge's rules. */
  readonly edge: EdgeEnvOptions;
}

/**
 * Parses a config file's text (YAML is a superset of JSON, so one parser reads both).
 *
 * @param text - the file's contents
 * @param source - its name, for error messages
 * @throws S2SPError `invalid_config` (see `configError`) naming the file and what is wrong
 */
export function parseConfigFile(text: string, source: string): ProxyConfigFile {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw configError(
      source,
      `is not valid JSON or YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const parsed = ConfigFileSchema.safeParse(document ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw configError(
      source,
      `${issue?.path.join('.') || 'the file'}: ${issue?.message}. Expected { tableTools: ["name" or "name:/pointer" or "name:/pointer:format" or {name, pointer, format}], excludeTools: ["name"], detect: true|false, tokenBudget: 8000, authTokens: ["…"], allowedHosts: ["host"], allowedBrowserOrigins: ["https://…"], bodyTimeoutMs: 10000 }.`,
    );
  }
  const tableTools = (parsed.data.tableTools ?? []).map((entry) =>
    typeof entry === 'string'
      ? parseTableToolRule(source, entry)
      : parseTableToolRule(
          source,
          [entry.name, entry.pointer, entry.format].filter((part) => part !== undefined).join(':'),
        ),
  );
  return {
    tableTools,
    excludeTools: parsed.data.excludeTools ?? [],
    detect: parsed.data.detect,
    tokenBudget: parsed.data.tokenBudget,
    edge: edgeOptionsFrom(
      {
        allowedHosts: parsed.data.allowedHosts,
        allowedBrowserOrigins: parsed.data.allowedBrowserOrigins,
        authTokens: parsed.data.authTokens,
        requestBodyTimeoutMs: parsed.data.bodyTimeoutMs,
      },
      {
        allowedHosts: `${source}: allowedHosts`,
        allowedBrowserOrigins: `${source}: allowedBrowserOrigins`,
        auth: `${source}: authTokens`,
        requestBodyTimeoutMs: `${source}: bodyTimeoutMs`,
      },
    ),
  };
}
