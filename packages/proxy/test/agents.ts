/**
 * Agents for the proxy's relay and isolation tests: official SDK clients of both majors (v1; v2 on
 * the 2025 era and pinned to 2026-07-28) on the proxy's Streamable HTTP endpoint, each answering
 * sampling, elicitation and roots under its own name and recording what it was asked.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

/** Every capability the proxy relays. */
export const ALL: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {} },
  roots: { listChanged: true },
};

/** A client's answers, each naming the client, and what it was asked. */
function answers(name: string, asked: string[]) {
  return {
    sample: () => {
      asked.push('sampling');
      return {
        model: name,
        role: 'assistant' as const,
        content: { type: 'text' as const, text: `${name} says hi` },
      };
    },
    elicit: () => {
      asked.push('elicitation');
      return { action: 'accept' as const, content: { name } };
    },
    roots: () => {
      asked.push('roots');
      return { roots: [{ uri: `file:///${name}`, name }] };
    },
  };
}

export interface Agent extends AsyncDisposable {
  /** Calls a fixture tool and reads its `{ ok } | { error }` answer. */
  call(tool: string, args?: Record<string, unknown>): Promise<Outcome>;
  /** What the upstream asked this client, in order. */
  readonly asked: string[];
  readonly listTools: () => Promise<string[]>;
  readonly raw: Client | ClientV2;
}

export type Outcome = {
  ok?: Record<string, unknown>;
  error?: { code: number; data?: unknown };
};

/** An SDK v1 client declaring `capabilities`, answering as `name`. */
export async function agentV1(
  mcpUrl: string,
  name: string,
  capabilities: ClientCapabilities,
  token?: string,
) {
  const asked: string[] = [];
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const answer = answers(name, asked);
  if (capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, answer.sample);
  if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, answer.elicit);
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, answer.roots);
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), bearer(token)));
  return agent(client, asked);
}

/** An SDK v2 client on the 2025 era (`initialize`), declaring `capabilities`. */
export function agentV2(
  mcpUrl: string,
  name: string,
  capabilities: ClientCapabilities,
  token?: string,
) {
  return agentV2On('legacy', mcpUrl, name, capabilities, token);
}

/** An SDK v2 client pinned to 2026-07-28 (no session: it declares `capabilities` per request). */
export function agentModern(
  mcpUrl: string,
  name: string,
  capabilities: ClientCapabilities,
  token?: string,
) {
  return agentV2On({ pin: '2026-07-28' }, mcpUrl, name, capabilities, token);
}

async function agentV2On(
  mode: 'legacy' | { pin: string },
  mcpUrl: string,
  name: string,
  capabilities: ClientCapabilities,
  token?: string,
) {
  const asked: string[] = [];
  const client = new ClientV2(
    { name, version: '1.0.0' },
    { capabilities: capabilities as never, versionNegotiation: { mode } },
  );
  const answer = answers(name, asked);
  if (capabilities.sampling) client.setRequestHandler('sampling/createMessage', answer.sample);
  if (capabilities.elicitation) client.setRequestHandler('elicitation/create', answer.elicit);
  if (capabilities.roots) client.setRequestHandler('roots/list', answer.roots);
  await client.connect(new HttpV2(new URL(mcpUrl), bearer(token)));
  expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'legacy' ? '2025-11-25' : mode.pin);
  return agent(client, asked);
}

function agent(client: Client | ClientV2, asked: string[]): Agent {
  return {
    asked,
    raw: client,
    async call(tool, args = {}) {
      const result = (await client.callTool({ name: tool, arguments: args })) as {
        content: { type: string; text?: string }[];
      };
      return JSON.parse(result.content[0]?.text ?? 'null') as Outcome;
    },
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    // Ends the MCP session (DELETE), not only the connection: the proxy then counts it no more.
    async [Symbol.asyncDispose]() {
      const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
      await transport?.terminateSession?.().catch(() => {});
      await client.close();
    },
  };
}

/** The transport option that sends `token` as a bearer token, if any. */
function bearer(token: string | undefined) {
  return token === undefined
    ? undefined
    : { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
}
