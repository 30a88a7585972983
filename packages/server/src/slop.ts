/**
 * `@s2sp/server/slop`: a server's tools over SLOP (the Simple Language Open Protocol), for agents
 * that speak plain HTTP instead of MCP, through the same tool pipeline.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/client';
import { PROTOCOL, S2SP_ERROR_STATUS, S2SPError, type S2SPErrorCode } from '@s2sp/core';
import { describeType, isPlainObject, parseJsonText } from '@s2sp/core/json';
import { parseOptions, stringList } from '@s2sp/core/options';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { sendToolArguments } from './advice.js';
import { DataPlaneOptionsSchema } from './data-plane/data-plane-options.js';
import { isJsonContentType, isJsonWhitespace } from './data-plane/request.js';
import { BearerTokenSchema, createBearerCheck } from './edge/bearer-auth.js';
import { EdgeOptionsSchema } from './edge/edge-options.js';
import { s2spErrorToResponse } from './edge/error-response.js';
import { readRequestBody } from './edge/request-body.js';
import { type CallToolResult, InMemoryTransport, loadClient, type McpServer } from './mcp-sdk.js';

/** Options for {@link mountSlop}. */
export interface SlopOptions {
  /** Path prefix of the SLOP routes. Default `''` (so `GET /tools`, `POST /tools/:tool_id`). */
  readonly basePath?: string;
  /**
   * Bearer tokens accepted in `Authorization: Bearer <token>`. When set, requests without one of
   * them get 401 with a `WWW-Authenticate: Bearer` challenge. Compared in constant time. (With
   * `createS2SPServer`, its `auth` option covers SLOP, `/mcp` and A2S alike.)
   */
  readonly bearerTokens?: readonly string[];
  /** Largest request body (tool arguments), in bytes; larger gets 413. Default 1 MiB. */
  readonly maxRequestBytes?: number;
  /** Longest the request body may take to arrive, in ms; slower gets 408. Default 10 000. */
  readonly requestBodyTimeoutMs?: number;
  /**
   * Check `X-SLOP-Scope` (SLOP §7.2): listing tools needs `tools.*`, `tools.read` or
   * `tools.execute`; calling one needs `tools.*`, `tools.execute` or `tools.execute.<tool_id>`.
   * A request without a sufficient scope gets 403. Default false.
   */
  readonly requireScopes?: boolean;
}

/** The options of {@link mountSlop}: the edge's token and timeout rules, the data plane's size rule. */
const SlopOptionsSchema = z.object({
  basePath: z.string().optional(),
  bearerTokens: stringList(BearerTokenSchema).optional(),
  maxRequestBytes: DataPlaneOptionsSchema.shape.maxRequestBytes,
  requestBodyTimeoutMs: EdgeOptionsSchema.shape.requestBodyTimeoutMs,
  requireScopes: z.boolean().default(false),
} satisfies Record<keyof SlopOptions, z.ZodType>);

/** Where SLOP gets its tools: anything that can make fully registered `McpServer`s. */
export interface SlopToolSource {
  createMcpServer(): McpServer;
}

/** A tool as SLOP's `GET /tools` lists it (SLOP §4.2.1). */
export interface SlopTool {
  readonly id: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

function scopesOf(c: Context): Set<string> {
  return new Set(
    (c.req.header('x-slop-scope') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

function resultValue(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const [first, ...rest] = result.content;
  if (first?.type === 'text' && rest.length === 0) {
    try {
      return JSON.parse(first.text);
    } catch {
      return first.text;
    }
  }
  return result.content;
}

function toolError(result: CallToolResult): S2SPError {
  const text =
    result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n') ||
    'The tool failed.';
  const meta = result._meta?.[PROTOCOL.errorCodeMeta];
  if (typeof meta === 'string' && Object.hasOwn(S2SP_ERROR_STATUS, meta))
    return new S2SPError(meta as S2SPErrorCode, text);
  // Arguments that fail the tool's input schema: SDK v2 answers a tool error result saying so
  // (v1 answered JSON-RPC -32602, which its Client turned into this text).
  const invalid = /^(?:MCP error -32602: )?(?=Input validation error: )/.exec(text);
  if (invalid) return new S2SPError('invalid_request', text.slice(invalid[0].length));
  return new S2SPError('tool_error', text);
}

/**
 * Serves a server's tools over SLOP (the Simple Language Open Protocol, SLOP §4.2), for agents
 * that speak plain HTTP instead of MCP: `GET /tools` lists them as `{id, description,
 * parameters}`, and `POST /tools/:tool_id` calls one with the JSON body as arguments and answers
 * `{"result": ...}`. Calls go through the same MCP tool pipeline (an in-process `McpServer` and
 * the official `Client`), so a resource tool called with `abstract_domains` answers with the S2SP
 * object: a SLOP agent gets the same control-plane / data-plane split. Errors use SLOP's
 * `{"error":{code,message,status}}` shape (SLOP §5), which is also S2SP's.
 *
 * @param app - the Hono app to add the routes to (an S2SP server's `app`)
 * @param source - where the tools come from (an S2SP server)
 * @param options - path prefix, bearer tokens, scope checks
 */
export function mountSlop(app: Hono, source: SlopToolSource, options: SlopOptions = {}): void {
  const parsed = parseOptions(SlopOptionsSchema, options, { factory: 'mountSlop' });
  const base = (parsed.basePath ?? '').replace(/\/+$/, '');
  const checkBearer = parsed.bearerTokens
    ? createBearerCheck({ bearerTokens: parsed.bearerTokens, realm: 'slop' })
    : undefined;
  const { maxRequestBytes, requestBodyTimeoutMs: bodyTimeoutMs } = parsed;

  let client: Promise<Client> | undefined;
  const connect = (): Promise<Client> => {
    client ??= (async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await source.createMcpServer().connect(serverSide);
      const c = new (await loadClient())({ name: 's2sp-slop', version: '1.0.0' });
      await c.connect(clientSide);
      return c;
    })();
    return client;
  };

  /** The 401 to send, if any; throws the 403 of a missing scope. */
  const authorize = async (c: Context, needs: readonly string[]): Promise<Response | undefined> => {
    if (checkBearer) {
      const result = await checkBearer(c.req.raw);
      if (!result.ok) return result.response;
    }
    if (parsed.requireScopes) {
      const scopes = scopesOf(c);
      if (!needs.some((scope) => scopes.has(scope))) {
        throw new S2SPError(
          'forbidden',
          `Permission denied: send X-SLOP-Scope with one of ${needs.join(', ')}.`,
        );
      }
    }
    return undefined;
  };

  app.get(`${base}/tools`, async (c) => {
    const refused = await authorize(c, ['tools.*', 'tools.read', 'tools.execute']);
    if (refused) return refused;
    const { tools } = await (await connect()).listTools();
    const listed: SlopTool[] = tools.map((tool) => {
      const required = new Set(tool.inputSchema.required ?? []);
      const parameters: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        parameters[name] =
          isPlainObject(schema) && required.has(name) ? { ...schema, required: true } : schema;
      }
      return { id: tool.name, description: tool.description ?? '', parameters };
    });
    return c.json({ tools: listed });
  });

  app.post(`${base}/tools/:tool_id`, async (c) => {
    const id = c.req.param('tool_id');
    const refused = await authorize(c, ['tools.*', 'tools.execute', `tools.execute.${id}`]);
    if (refused) return refused;
    const contentType = c.req.header('content-type');
    const bytes = await readRequestBody(c.req.raw, c.env, maxRequestBytes, bodyTimeoutMs);
    if (!bytes)
      throw new S2SPError(
        'payload_too_large',
        `The request body is larger than ${maxRequestBytes} bytes: send smaller tool arguments.`,
      );
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new S2SPError(
        'invalid_request',
        `The request body is not valid UTF-8 JSON. ${sendToolArguments}`,
      );
    }
    // JSON only: text/plain, form and multipart bodies are what a page on another site can send
    // without a CORS preflight. An empty body (no arguments) counts as {} whatever its type, as
    // on the data plane (fetch labels an empty string text/plain).
    if (!isJsonWhitespace(text) && !isJsonContentType(contentType))
      throw new S2SPError(
        'unsupported_media_type',
        `The request body is not application/json. ${sendToolArguments}`,
      );
    const args: unknown = isJsonWhitespace(text)
      ? {}
      : parseJsonText(
          text,
          () =>
            new S2SPError(
              'invalid_request',
              `The request body is not valid JSON. ${sendToolArguments}`,
            ),
        );
    if (!isPlainObject(args))
      throw new S2SPError(
        'invalid_request',
        `The request body is ${describeType(args)}, not a JSON object. ${sendToolArguments}`,
      );
    const mcp = await connect();
    const { tools } = await mcp.listTools();
    if (!tools.some((tool) => tool.name === id)) {
      throw new S2SPError(
        'not_found',
        `No tool "${id}". GET ${base}/tools lists the tools: ${tools.map((t) => t.name).join(', ')}.`,
      );
    }
    const result = (await mcp.callTool({ name: id, arguments: args })) as CallToolResult;
    if (result.isError) throw toolError(result);
    return c.json({ result: resultValue(result) });
  });

  app.all(`${base}/tools`, () =>
    s2spErrorToResponse(new S2SPError('method_not_allowed', 'Use GET on this path.'), {
      allow: 'GET',
    }),
  );
  app.all(`${base}/tools/:tool_id`, () =>
    s2spErrorToResponse(new S2SPError('method_not_allowed', 'Use POST on this path.'), {
      allow: 'POST',
    }),
  );
}
