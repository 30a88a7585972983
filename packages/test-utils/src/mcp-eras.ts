/**
 * The two MCP protocol eras in tests: which revisions this repository's servers speak, and the
 * official SDK clients of both majors connected in a chosen era, so a test is written once and
 * run per era.
 */
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';

/** The 2026 revision (`server/discover`, no `initialize`, no session). */
export const MODERN_REVISION = '2026-07-28';

/** The newest 2025-era revision (the `initialize` handshake). */
export const LEGACY_REVISION = '2025-11-25';

/**
 * The revisions this repository's servers (`createS2SPServer`, and the apps built on it) answer
 * on their MCP endpoint: both eras on the same endpoint. `auto` runs expect the newest of them.
 */
export const SERVED_REVISIONS: readonly string[] = [LEGACY_REVISION, MODERN_REVISION];

/**
 * How a client chooses its era: `legacy` is the `initialize` handshake (SDK v1, and v2's
 * default), `auto` probes with `server/discover` and falls back to `legacy`, and
 * `2026-07-28` is pinned: no fallback.
 */
export type McpEra = 'legacy' | 'auto' | typeof MODERN_REVISION;

/** One way to connect: an SDK major and the era it negotiates (v1 knows only `legacy`). */
export interface SdkClientRun {
  readonly sdk: 1 | 2;
  readonly era: McpEra;
}

/** Every SDK client run: v1, and v2 in each negotiation mode. */
export const SDK_CLIENT_RUNS: readonly SdkClientRun[] = [
  { sdk: 1, era: 'legacy' },
  { sdk: 2, era: 'legacy' },
  { sdk: 2, era: 'auto' },
  { sdk: 2, era: MODERN_REVISION },
];

/** `SDK v2, era auto`: a test title for a run. */
export function runTitle(run: SdkClientRun): string {
  return `SDK v${run.sdk}, era ${run.era}`;
}

/**
 * The revision a client in `era` ends up speaking with this repository's servers, or
 * `undefined` when it cannot connect (pinned to a revision they do not serve).
 */
export function expectedRevision(era: McpEra): string | undefined {
  if (era === 'legacy') return LEGACY_REVISION;
  if (era === 'auto')
    return SERVED_REVISIONS.includes(MODERN_REVISION) ? MODERN_REVISION : LEGACY_REVISION;
  return SERVED_REVISIONS.includes(era) ? era : undefined;
}

/** The `versionNegotiation` option of a v2 `Client` for `era`. */
export function versionNegotiation(era: McpEra): {
  mode: 'legacy' | 'auto' | { pin: string };
} {
  return { mode: era === 'legacy' || era === 'auto' ? era : { pin: era } };
}

/** A connected SDK client of either major, and the revision it negotiated. */
export interface SdkClientConnection {
  readonly client: ClientV1 | ClientV2;
  /** The negotiated revision (v1 reports none but only speaks the 2025 era). */
  readonly revision: string | undefined;
}

/**
 * Connects an official MCP SDK `Client` of the run's major over Streamable HTTP, negotiating the
 * run's era. Rejects as the SDK does when the era cannot be had (a pinned revision the server
 * does not speak).
 *
 * @param mcpUrl - the server's MCP endpoint
 * @param run - the SDK major and era
 * @param headers - sent with every request (a test's stand-in for who the caller is)
 */
export async function connectSdkClient(
  mcpUrl: string,
  run: SdkClientRun,
  headers?: Record<string, string>,
): Promise<SdkClientConnection> {
  const info = { name: 's2sp-test-agent', version: '1.0.0' };
  const transportOptions = headers ? { requestInit: { headers } } : {};
  if (run.sdk === 1) {
    if (run.era !== 'legacy') throw new Error('SDK v1 speaks only the 2025 era');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const client = new Client(info);
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), transportOptions));
    return { client, revision: undefined };
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client(info, { versionNegotiation: versionNegotiation(run.era) });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), transportOptions));
  return { client, revision: client.getNegotiatedProtocolVersion() };
}

/** What a test passes with a tool call, whichever SDK major the client is. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onprogress?: (progress: { progress: number }) => void;
}

/**
 * Calls a tool on a client of either SDK major: v1 takes the options third (after a result
 * schema), v2 second.
 *
 * @param client - a client from {@link connectSdkClient}
 * @param params - the `tools/call` params
 * @param options - abort signal and progress callback
 */
export async function callSdkTool(
  client: SdkClientConnection['client'],
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
  options: CallOptions = {},
): Promise<{ isError?: boolean; structuredContent?: unknown; content?: unknown; _meta?: unknown }> {
  if ('getProtocolEra' in client) return client.callTool(params, options);
  return (client as ClientV1).callTool(params, undefined, options);
}

/** A connected client of one SDK major and era, with the calls tests make, major-agnostic. */
export interface EraClient {
  readonly client: SdkClientConnection['client'];
  /** What the server declared to this client (`initialize` or `server/discover`). */
  capabilities(): unknown;
  /** Calls a tool (see {@link callSdkTool}); `meta` is the request's `_meta`. */
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions & { readonly meta?: Record<string, unknown> },
  ): ReturnType<typeof callSdkTool>;
  /** The names `tools/list` answers. */
  tools(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * {@link connectSdkClient}, checked to have negotiated the revision the run expects against this
 * repository's servers, and wrapped in {@link EraClient}.
 *
 * @throws Error when the negotiated revision is not the one `expectedRevision` names
 */
export async function connectEraClient(
  mcpUrl: string,
  run: SdkClientRun,
  headers?: Record<string, string>,
): Promise<EraClient> {
  const { client, revision } = await connectSdkClient(mcpUrl, run, headers);
  const expected = run.sdk === 1 ? undefined : expectedRevision(run.era);
  if (revision !== expected) {
    await client.close();
    throw new Error(`${runTitle(run)} negotiated ${revision}, expected ${expected}`);
  }
  return {
    client,
    capabilities: () => client.getServerCapabilities(),
    call: (name, args = {}, { meta, ...options } = {}) =>
      callSdkTool(client, { name, arguments: args, ...(meta && { _meta: meta }) }, options),
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    close: () => client.close(),
  };
}
