/**
 * The consumer-role rule (PROTOCOL §7.7) through every adapter of `@s2sp/client` (the registry:
 * each brings its runs in `adapters/<name>.ts`), at the framework's current and lowest claimed
 * versions, against real MCP servers on loopback: a server that declares S2SP without the
 * consumer role never receives the rows behind a `ddi://` handle — the call is refused with
 * `forbidden` and its handler never runs — and the same handle then works with a server that
 * declares `consumer`. A server that declares no S2SP capability at all (as the Python reference)
 * still gets the rows, as before.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readS2SPCapability, S2SPDispatcher } from '@s2sp/client';
import type { RowWithId } from '@s2sp/core';
import { createS2SPServer, type ListeningServer, silentLogger } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  loadAdapters,
  type Outcome,
  ROLE_SERVERS,
  type RoleRun,
  type RoleServer,
  type RoleStep,
} from './adapter-runs.js';

const BODY_MARKER = 'BODY-VALUE';
const TABLE = Array.from({ length: 6 }, (_, i) => ({
  event: i % 2 === 0 ? 'Flood Warning' : 'Heat Advisory',
  description: `${BODY_MARKER}-description-${i}`,
}));
/** The rows every hand-off names. */
const CHOSEN = [0, 3];
const ABSTRACT_DATA = JSON.stringify(
  CHOSEN.map((id) => ({ _row_id: id, event: TABLE[id]?.event })),
);

interface Servers extends AsyncDisposable {
  readonly urls: Record<RoleServer, string>;
  /** Arguments `annotate` (on the resource-only server) received. */
  readonly annotateCalls: unknown[];
  /** Rows `summarise_alerts` (on the consumer server) received, per call. */
  readonly consumed: RowWithId[][];
  /** `body_data` `summarise_plain` (on the server that declares nothing) received, per call. */
  readonly plainBodies: unknown[];
}

const handOffShape = {
  abstract_data: z.string(),
  resource_url: z.string().optional(),
  body_data: z.string().optional(),
};

/**
 * alerts: S2SP roles ["resource"], with `get_alerts` and a plain `annotate` tool that takes the
 * hand-off arguments (what a prompt-injected model might pass a handle to); summaries: roles
 * ["consumer"]; plain: no S2SP capability, one consumer-shaped tool of its own.
 */
async function startServers(): Promise<Servers> {
  const annotateCalls: unknown[] = [];
  const consumed: RowWithId[][] = [];
  const plainBodies: unknown[] = [];
  const alerts = createS2SPServer({ name: 'alerts', version: '1', logger: silentLogger })
    .resourceTool('get_alerts', { description: 'Active alerts.' }, () => TABLE)
    .use((mcp) => {
      mcp.registerTool(
        'annotate',
        { description: 'Notes on alerts.', inputSchema: handOffShape },
        (args) => {
          annotateCalls.push(args);
          return { content: [{ type: 'text', text: 'noted' }] };
        },
      );
    });
  const summaries = createS2SPServer({
    name: 'summaries',
    version: '1',
    logger: silentLogger,
  }).consumerTool('summarise_alerts', { description: 'Summarises alerts.' }, (rows) => {
    consumed.push(rows);
    return `summarised ${rows.length} alerts`;
  });
  const plain = createS2SPServer({ name: 'plain', version: '1', logger: silentLogger }).use(
    (mcp) => {
      mcp.registerTool(
        'summarise_plain',
        { description: 'Summarises alerts.', inputSchema: handOffShape },
        (args) => {
          plainBodies.push(args.body_data);
          return { content: [{ type: 'text', text: 'plain summary' }] };
        },
      );
    },
  );
  const listening: ListeningServer[] = [];
  const close = async () => {
    for (const server of [alerts, summaries, plain]) await server.close();
  };
  try {
    listening.push(await alerts.listen(), await summaries.listen(), await plain.listen());
  } catch (error) {
    await close();
    throw error;
  }
  const [a, s, p] = listening as [ListeningServer, ListeningServer, ListeningServer];
  return {
    urls: { alerts: a.mcpUrl, summaries: s.mcpUrl, plain: p.mcpUrl },
    annotateCalls,
    consumed,
    plainBodies,
    [Symbol.asyncDispose]: close,
  };
}

function handleIn(text: string): string {
  const match = /ddi:\/\/[A-Za-z0-9_-]+/.exec(text);
  if (!match) throw new Error('no ddi:// handle in the result');
  return match[0];
}

/** Expected rows of the consumer: the chosen rows, whole. */
const CONSUMER_ROWS = CHOSEN.map((id) => ({ _row_id: id, ...TABLE[id] }));
/** Expected body rows of the plain tool: the chosen rows' body columns. */
const PLAIN_BODY = CHOSEN.map((id) => ({ _row_id: id, description: TABLE[id]?.description }));

function expectRuleKept(servers: Servers, refusals: string[], dispatcher: S2SPDispatcher): void {
  // The dispatcher refused the resource-only server once, with forbidden…
  expect(refusals).toEqual(['forbidden']);
  // …whose handler never ran, so it never saw a row, …
  expect(servers.annotateCalls).toEqual([]);
  // …and the same handle then reached the consumer whole.
  expect(servers.consumed).toEqual([CONSUMER_ROWS]);
  // A server that declares nothing gets the rows, as before the declaration existed.
  expect(servers.plainBodies.map((body) => JSON.parse(String(body)))).toEqual([PLAIN_BODY]);
  expect(dispatcher.pending).toBe(0);
}

/**
 * get_alerts (sync) → annotate with the handle (refused: the alerts server is resource-only) →
 * summarise_alerts with the same handle → get_alerts again → summarise_plain with the new handle.
 * `pendingAfterRefusal` is read when the third call is made.
 */
function scenario(dispatcher: S2SPDispatcher, pendingAfterRefusal: number[]): RoleStep[] {
  const sync = () => ({ abstract_domains: 'event', mode: 'sync' });
  const handOff = (from: Outcome | undefined) => ({
    abstract_data: ABSTRACT_DATA,
    resource_url: handleIn(from?.text ?? ''),
  });
  return [
    { server: 'alerts', tool: 'get_alerts', args: sync },
    { server: 'alerts', tool: 'annotate', args: (before) => handOff(before[0]) },
    {
      server: 'summaries',
      tool: 'summarise_alerts',
      args: (before) => {
        pendingAfterRefusal.push(dispatcher.pending);
        return handOff(before[0]);
      },
    },
    { server: 'alerts', tool: 'get_alerts', args: sync },
    { server: 'plain', tool: 'summarise_plain', args: (before) => handOff(before[3]) },
  ];
}

const runs: RoleRun[] = (await loadAdapters()).flatMap((adapter) => adapter.runs.consumerRole);

describe.each(runs)('consumer role through $name', (run) => {
  it('refuses a handle for a server without the consumer role, which then works where it belongs', async () => {
    await using servers = await startServers();
    const refusals: string[] = [];
    const dispatcher = new S2SPDispatcher({
      onRefusal: ({ error }) => refusals.push(error.code),
    });
    const pendingAfterRefusal: number[] = [];
    const outcomes = await run.run(
      servers.urls,
      dispatcher,
      scenario(dispatcher, pendingAfterRefusal),
    );
    expect(outcomes).toHaveLength(5);
    // What the agent (and its model) read never holds a body value.
    for (const outcome of outcomes) expect(outcome.text).not.toContain(BODY_MARKER);
    // The refused call kept its handle, and only it was refused.
    expect(pendingAfterRefusal).toEqual([1]);
    const codes = outcomes.map((outcome) => outcome.code);
    expect(codes).toEqual([
      undefined,
      run.reportsCode ? 'forbidden' : undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expectRuleKept(servers, refusals, dispatcher);
  });
});

describe('the servers of this test', () => {
  it('declare S2SP as resource-only and consumer, and nothing at all', async () => {
    await using servers = await startServers();
    const roles: Record<string, unknown> = {};
    for (const server of ROLE_SERVERS) {
      const client = new Client({ name: 'probe', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(servers.urls[server])));
      roles[server] = readS2SPCapability(client.getServerCapabilities())?.roles ?? 'none';
      await client.close();
    }
    expect(roles).toEqual({ alerts: ['resource'], summaries: ['consumer'], plain: 'none' });
  });
});
