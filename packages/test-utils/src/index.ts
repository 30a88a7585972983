/**
 * Helpers shared by the tests of every package: real loopback HTTP servers on port 0 that cannot
 * be left running, and request counting. Source-only (never built or published).
 */
export { adviceProblems } from './advice-catalogue.js';
export { generateRows } from './alert-like-rows.js';
export { CHROMIUM_PATH, launchChromium } from './chromium.js';
export {
  CLIENT_PACKAGE_DIR,
  type ClientAdapter,
  type ClientManifest,
  clientAdapters,
  clientManifest,
} from './client-adapters.js';
export {
  type HeldOutShape,
  heldOutShapes,
  type NotesRow,
  notesTable,
} from './held-out-shapes.js';
export {
  type CallOptions,
  callSdkTool,
  connectEraClient,
  connectSdkClient,
  type EraClient,
  expectedRevision,
  LEGACY_REVISION,
  type McpEra,
  MODERN_REVISION,
  runTitle,
  SDK_CLIENT_RUNS,
  type SdkClientConnection,
  type SdkClientRun,
  SERVED_REVISIONS,
  versionNegotiation,
} from './mcp-eras.js';
export { MEDIAN_COST_TOKEN, withMedianCostToken } from './median-cost-token.js';
export {
  type DocumentedOption,
  readmeFlagsDiff,
  readmeOptionsDiff,
  type Table,
  tableAfter,
} from './readme-options.js';
export { seededRandom } from './seeded-random.js';
export { codeAndDataOf, codeOf } from './thrown-error.js';
export { type TokenShape, tokenCorpus } from './token-corpus.js';

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on 127.0.0.1, closed by `close()` or `await using`. */
export interface TestServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** Every request the server received, in order (method and path). */
  readonly requests: { method: string; url: string }[];
  /** Open TCP connections ever accepted. */
  readonly connections: () => number;
  close(): Promise<void>;
}

/** Waits until `server` listens and wraps it as a {@link TestServer}. */
export async function wrapServer(
  server: Server,
  requests: { method: string; url: string }[] = [],
): Promise<TestServer> {
  let connections = 0;
  server.on('connection', () => connections++);
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Starts a plain `node:http` server on 127.0.0.1 port 0.
 *
 * @param handler - the request listener
 */
export async function startHttpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
): Promise<TestServer> {
  const requests: { method: string; url: string }[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' });
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  return wrapServer(server, requests);
}

/** Reads a request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** An official MCP SDK client connected over Streamable HTTP; closed with `await using`. */
export interface TestMcpClient extends AsyncDisposable {
  readonly client: import('@modelcontextprotocol/sdk/client/index.js').Client;
  /** Calls a tool and returns its result (tool errors come back as `isError`, not throws). */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** The parts of a `CallToolResult` tests look at. */
export interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The first text block of a tool result. */
export function textOf(result: ToolResult): string {
  const block = result.content.find((c) => c.type === 'text');
  if (block?.text === undefined) throw new Error(`no text block in ${JSON.stringify(result)}`);
  return block.text;
}

/**
 * Connects the official MCP SDK `Client` to a Streamable HTTP endpoint, as a real agent would.
 *
 * @param mcpUrl - the server's `/mcp` URL
 * @param options - `bearerToken`: sent on every request, so that tests can be two clients of
 *   one server (a per-client limit counts the authenticated client)
 */
export async function connectMcpClient(
  mcpUrl: string,
  options: { readonly bearerToken?: string } = {},
): Promise<TestMcpClient> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const client = new Client({ name: 's2sp-test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      ...(options.bearerToken && {
        requestInit: { headers: { authorization: `Bearer ${options.bearerToken}` } },
      }),
    }),
  );
  const close = () => client.close();
  return {
    client,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as ToolResult,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Collects log lines in memory; pass `write` to a console logger. */
export function captureLines(): { lines: string[]; write: (line: string) => void } {
  const lines: string[] = [];
  return { lines, write: (line) => lines.push(line) };
}
export { type MariaDbTestServer, startMariaDb } from './mariadb.js';
export { type PostgresTestServer, postgresBinDir, startPostgres } from './postgres.js';
export {
  freePort,
  type RedisClusterTestServer,
  type RedisTestServer,
  sendInline,
  startRedis,
  startRedisCluster,
} from './redis.js';

/**
 * The stable `code` of the error `run` throws (an `S2SPError`'s), `'not an S2SPError'` for any
 * other error, or `undefined` when nothing is thrown: tests assert codes, not wording.
 */
export function thrownCode(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' && (error as Error).name === 'S2SPError'
      ? code
      : 'not an S2SPError';
  }
  return undefined;
}
export {
  type Fault,
  type FaultProxy,
  type ProxiedRequest,
  startFaultProxy,
} from './fault-proxy.js';
export { type ProgressLine, type ProgressLineOptions, startProgressLine } from './progress-line.js';
