/**
 * `@s2sp/server/a2s`: A2S (Agent-to-Service) capability documents for S2SP pipelines: builders for the steps, a
 * canonical checksum with its verifier, a small YAML writer, and the `/.well-known/a2s` routes.
 *
 * @module
 */
import { S2SPError } from '@s2sp/core';
import { isPlainObject, sha256Hex } from '@s2sp/core/internal';
import type { Hono } from 'hono';
import { z } from 'zod';

/** The A2S protocol version these documents follow. */
export const A2S_VERSION = '1.0.0';

/**
 * An A2S variable placeholder, `${NAME}`: a capability's inputs and the values that flow between
 * its steps.
 *
 * @param name - the variable, conventionally UPPER_SNAKE_CASE
 */
export function a2sVariable(name: string): string {
  return `\${${name}}`;
}

/** One execution step. `format` says how `definition` is to be read. */
export const A2SStepSchema = z.looseObject({
  id: z.string().min(1),
  format: z.enum(['OpenAPI', 'GraphQL', 'AsyncAPI', 'Custom']),
  definition: z.record(z.string(), z.unknown()),
  input_template: z.record(z.string(), z.unknown()).optional(),
  output_mapping: z.record(z.string(), z.string()).optional(),
});

/** An A2S capability document (header plus `execution`). */
export const A2SCapabilitySchema = z.looseObject({
  a2s: z.string(),
  name: z.string().min(1),
  description: z.string(),
  domains: z.array(z.string()),
  version: z.string(),
  checksum: z.string().optional(),
  execution: z.looseObject({ type: z.string(), steps: z.array(A2SStepSchema).min(1) }),
});

/** One execution step. */
export type A2SStep = z.infer<typeof A2SStepSchema>;
/** A capability document; `checksum` is set by {@link sealCapability}. */
export type A2SCapability = z.infer<typeof A2SCapabilitySchema>;

/**
 * The canonical serialisation the checksum is computed over: JSON with object keys sorted by
 * UTF-16 code unit (as JavaScript's default sort does), no whitespace, strings and numbers as
 * `JSON.stringify` writes them — the JSON Canonicalization Scheme (RFC 8785) for documents made of
 * strings, integers, booleans, null, arrays and objects.
 *
 * @throws S2SPError `invalid_request` for values JSON cannot represent
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string')
    return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new S2SPError('invalid_request', 'A2S documents cannot hold NaN or Infinity.');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const members = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new S2SPError(
    'invalid_request',
    `A2S documents hold only JSON values, not ${typeof value}.`,
  );
}

/**
 * The checksum of a capability: SHA-256, lowercase hex, of {@link canonicalJson} of the document
 * without its `checksum` member.
 */
export async function capabilityChecksum(document: Record<string, unknown>): Promise<string> {
  const { checksum: _checksum, ...rest } = document;
  return sha256Hex(canonicalJson(rest));
}

/** Validates a capability and sets its `checksum`. */
export async function sealCapability(
  document: Omit<A2SCapability, 'checksum'>,
): Promise<A2SCapability> {
  const parsed = A2SCapabilitySchema.safeParse(document);
  if (!parsed.success)
    throw new S2SPError(
      'invalid_request',
      `Not a valid A2S capability: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`,
    );
  const { checksum: _checksum, ...rest } = document as A2SCapability;
  return { ...rest, checksum: await capabilityChecksum(rest) };
}

/**
 * Checks a capability document received from elsewhere: valid shape, and a checksum that matches
 * its content. A document changed after sealing fails.
 *
 * @returns `{ valid: true }`, or `{ valid: false, reason }`
 */
export async function verifyCapability(
  document: unknown,
): Promise<{ valid: true } | { valid: false; reason: string }> {
  const parsed = A2SCapabilitySchema.safeParse(document);
  if (!parsed.success) return { valid: false, reason: 'not an A2S capability document' };
  if (!parsed.data.checksum) return { valid: false, reason: 'no checksum' };
  let expected: string;
  try {
    expected = await capabilityChecksum(document as Record<string, unknown>);
  } catch {
    return { valid: false, reason: 'holds values JSON cannot represent' };
  }
  return expected === parsed.data.checksum.toLowerCase()
    ? { valid: true }
    : { valid: false, reason: 'checksum does not match the content' };
}

/** A Custom step that calls an MCP tool over Streamable HTTP. */
export function mcpToolStep(options: {
  id: string;
  endpoint: string;
  tool: string;
  description?: string;
  inputTemplate: Record<string, unknown>;
  outputMapping?: Record<string, string>;
}): A2SStep {
  return {
    id: options.id,
    format: 'Custom',
    definition: {
      protocol: 'MCP',
      transport: 'streamable-http',
      endpoint: options.endpoint,
      method: 'tools/call',
      tool: options.tool,
      ...(options.description && { description: options.description }),
    },
    input_template: { name: options.tool, arguments: options.inputTemplate },
    ...(options.outputMapping && { output_mapping: options.outputMapping }),
  };
}

/**
 * An OpenAPI step holding only the S2SP data-plane operation, `POST /s2sp/data/{token}`
 * (PROTOCOL §3), as A2S asks ("include only the necessary path").
 *
 * @param options.serverUrl - the data plane's base URL
 */
export function dataPlaneStep(options: {
  id: string;
  serverUrl: string;
  inputTemplate: Record<string, unknown>;
  outputMapping?: Record<string, string>;
}): A2SStep {
  const row = {
    type: 'object',
    required: ['_row_id'],
    properties: { _row_id: { type: 'integer', minimum: 0 } },
    additionalProperties: true,
  };
  const error = {
    description: 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return {
    id: options.id,
    format: 'OpenAPI',
    definition: {
      openapi: '3.0.1',
      info: {
        title: 'S2SP data plane',
        version: '1.0.0',
        description: 'Redeems a single-use resource_url for the full rows (server to server).',
      },
      servers: [{ url: options.serverUrl }],
      paths: {
        '/s2sp/data/{token}': {
          post: {
            summary: 'Fetch body rows (single use)',
            parameters: [
              {
                name: 'token',
                in: 'path',
                required: true,
                schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
              },
            ],
            requestBody: {
              required: false,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      row_ids: { type: 'array', items: { type: 'integer', minimum: 0 } },
                      columns: { type: 'array', items: { type: 'string' } },
                    },
                  },
                },
              },
            },
            responses: {
              '200': {
                description: 'The selected rows',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      required: ['body', 'total_rows'],
                      properties: {
                        body: { type: 'array', items: row },
                        total_rows: { type: 'integer' },
                        columns_returned: { type: 'array', items: { type: 'string' } },
                        missing_row_ids: { type: 'array', items: { type: 'integer' } },
                      },
                    },
                  },
                },
              },
              '400': error,
              '404': { ...error, description: 'Unknown, expired or already used' },
              '413': error,
              '415': error,
            },
          },
        },
      },
      components: {
        schemas: {
          Error: {
            type: 'object',
            properties: {
              error: {
                type: 'object',
                properties: {
                  code: { type: 'string' },
                  message: { type: 'string' },
                  status: { type: 'integer' },
                },
              },
            },
          },
        },
      },
    },
    input_template: options.inputTemplate,
    ...(options.outputMapping && { output_mapping: options.outputMapping }),
  };
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
// Words YAML 1.1 readers would turn into booleans or null if left unquoted.
const RESERVED = /^(y|n|yes|no|on|off|true|false|null|~)$/i;

function yamlKey(key: string): string {
  return PLAIN_KEY.test(key) && !RESERVED.test(key) ? key : JSON.stringify(key);
}

/**
 * Writes JSON-compatible data as block-style YAML. Every string is written as a JSON (double-
 * quoted) scalar, which YAML 1.2 reads back exactly, so no value can change type or meaning.
 */
export function toYaml(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return value
      .map((item) => {
        const rendered = toYaml(item, indent + 2);
        const nested =
          (isPlainObject(item) && Object.keys(item).length > 0) ||
          (Array.isArray(item) && item.length > 0);
        // A nested block starts on the dash's line: "- id: x", its other lines indented under it.
        return nested ? `${pad}- ${rendered.slice(indent + 2)}` : `${pad}- ${rendered}`;
      })
      .join('\n');
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (keys.length === 0) return '{}';
    return keys
      .map((key) => {
        const item = value[key];
        const nested =
          (isPlainObject(item) && Object.keys(item).length > 0) ||
          (Array.isArray(item) && item.length > 0);
        return nested
          ? `${pad}${yamlKey(key)}:\n${toYaml(item, indent + 2)}`
          : `${pad}${yamlKey(key)}: ${toYaml(item, indent + 2)}`;
      })
      .join('\n');
  }
  return canonicalJson(value);
}

/**
 * Serves capability documents at `GET /.well-known/a2s/capabilities` (a list of name,
 * description, version, checksum and URL) and `GET /.well-known/a2s/capabilities/:name` (the
 * document: YAML when `Accept` asks for YAML, JSON otherwise).
 *
 * @param app - the app to add the routes to
 * @param capabilities - the sealed documents, or a function giving them (called per request, so
 *   documents can use addresses known only after `listen()`)
 */
export function mountA2S(
  app: Hono,
  capabilities:
    | readonly A2SCapability[]
    | (() => readonly A2SCapability[] | Promise<readonly A2SCapability[]>),
): void {
  const load = async () =>
    typeof capabilities === 'function' ? await capabilities() : capabilities;
  const base = '/.well-known/a2s/capabilities';
  app.get(base, async (c) => {
    const docs = await load();
    return c.json({
      capabilities: docs.map((d) => ({
        name: d.name,
        description: d.description,
        version: d.version,
        checksum: d.checksum,
        url: `${base}/${encodeURIComponent(d.name)}`,
      })),
    });
  });
  app.get(`${base}/:name`, async (c) => {
    const doc = (await load()).find((d) => d.name === c.req.param('name'));
    if (!doc)
      throw new S2SPError(
        'not_found',
        `No A2S capability named "${c.req.param('name')}". GET ${base} lists them.`,
      );
    const accept = c.req.header('accept') ?? '';
    if (/\b(application|text)\/(x-)?yaml\b/.test(accept)) {
      return c.body(`${toYaml(doc)}\n`, 200, { 'content-type': 'application/yaml; charset=utf-8' });
    }
    return c.json(doc);
  });
}
