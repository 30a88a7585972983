/**
 * What each `@s2sp/client` adapter brings to the two suites that run every adapter: the
 * consumer-role rule (`consumer-role.test.ts`) and the client matrix (`client-matrix.test.ts`).
 * Each adapter of the registry (`clientAdapters()`, the client's `exports`) has one module
 * `adapters/<name>.ts` exporting its {@link AdapterRuns}, at the framework's current version and
 * at the lowest one the client's peer range claims (from `lowest/`); the suites load them all from
 * the registry, and `adapter-registry.test.ts` checks that each is there and covers both versions.
 */
import { readFileSync } from 'node:fs';
import type { S2SPDispatcher } from '@s2sp/client';
import { type ClientAdapter, clientAdapters, type McpEra } from '@s2sp/test-utils';

/** Which of an adapter's framework versions a run drives: this package's, or `lowest/`'s. */
export type FrameworkVersion = 'current' | 'lowest';

/** The three servers of the consumer-role suite (see `consumer-role.test.ts`). */
export type RoleServer = 'alerts' | 'summaries' | 'plain';

/** Every consumer-role server, in the order they start. */
export const ROLE_SERVERS: readonly RoleServer[] = ['alerts', 'summaries', 'plain'];

/** What a call through an adapter gave the agent: its text, and the S2SP error code if any. */
export interface Outcome {
  readonly text: string;
  readonly code: unknown;
}

/** One tool call of the consumer-role scenario; `args` reads the outcomes of the calls before. */
export interface RoleStep {
  readonly server: RoleServer;
  readonly tool: string;
  args(before: readonly Outcome[]): Record<string, unknown>;
}

/** One framework version running the consumer-role scenario. */
export interface RoleRun {
  /** The framework and its version, e.g. `Mastra 0.14.5`. */
  readonly name: string;
  readonly version: FrameworkVersion;
  /**
   * Whether an outcome carries the refusal's code. Claude Code shows its model only a denial's
   * text; the dispatcher's `onRefusal` has the code either way.
   */
  readonly reportsCode: boolean;
  /** Makes the calls of `steps` in order through the framework; one outcome per step. */
  run(
    urls: Record<RoleServer, string>,
    dispatcher: S2SPDispatcher,
    steps: readonly RoleStep[],
  ): Promise<Outcome[]>;
}

/** A session of tool calls through a framework's client, for {@link sessionRun}. */
export interface RoleSession {
  call(server: RoleServer, tool: string, args: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

/** A {@link RoleRun} for a client the test drives call by call (every framework but Claude's). */
export function sessionRun(
  name: string,
  version: FrameworkVersion,
  open: (urls: Record<RoleServer, string>, dispatcher: S2SPDispatcher) => Promise<RoleSession>,
): RoleRun {
  return {
    name,
    version,
    reportsCode: true,
    async run(urls, dispatcher, steps) {
      const session = await open(urls, dispatcher);
      try {
        const outcomes: Outcome[] = [];
        for (const step of steps)
          outcomes.push(await session.call(step.server, step.tool, step.args(outcomes)));
        return outcomes;
      } finally {
        await session.close();
      }
    },
  };
}

/** A framework's client connected to one server, for {@link clientPerServerRun}. */
export interface ServerClient {
  /** Calls a tool through the framework's API; the result as the framework returns it. */
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A {@link sessionRun} for a framework with one client per server: an outcome is the result's
 * JSON and the code in its `_meta`.
 */
export function clientPerServerRun(
  name: string,
  version: FrameworkVersion,
  connect: (url: string, server: RoleServer, dispatcher: S2SPDispatcher) => Promise<ServerClient>,
): RoleRun {
  return sessionRun(name, version, async (urls, dispatcher) => {
    const clients = {} as Record<RoleServer, ServerClient>;
    for (const server of ROLE_SERVERS)
      clients[server] = await connect(urls[server], server, dispatcher);
    return {
      async call(server, tool, args) {
        const result = await clients[server].call(tool, args);
        return { text: JSON.stringify(result), code: codeIn(result) };
      },
      async close() {
        for (const server of ROLE_SERVERS) await clients[server].close();
      },
    };
  });
}

/** The two servers of the client matrix: weather-alerts and chart-consumer. */
export type MatrixServer = 'weather' | 'charts';

/** A matrix client connected to both servers. */
export interface MatrixSession {
  /** Calls a tool; returns the text that reaches the model after the client's own conversion. */
  call(server: MatrixServer, tool: string, args: Record<string, unknown>): Promise<string>;
  /**
   * The protocol revision the client negotiated with each server, where the client tells;
   * empty for clients that only speak the 2025 era.
   */
  readonly revisions: readonly (string | undefined)[];
  close(): Promise<void>;
}

/** One MCP client of the matrix, at one version and era. */
export interface MatrixRun {
  /** The framework and its version, e.g. `OpenAI Agents 0.20.0`. */
  readonly name: string;
  /** `current` or `lowest` for an adapter's framework; `undefined` for a client without one. */
  readonly version: FrameworkVersion | undefined;
  /** The era the client negotiates (see `McpEra`); pinned runs fail at connect when unserved. */
  readonly era: McpEra;
  /** Opens a session; with `s2sp`, through the framework's `withS2SP`. */
  open(urls: Record<MatrixServer, string>, s2sp: boolean): Promise<MatrixSession>;
}

/** What an adapter's module `adapters/<name>.ts` exports as `runs`. */
export interface AdapterRuns {
  /**
   * The framework packages the runs drive. Each is installed here at its current version and in
   * `lowest/` at the lower bound of `@s2sp/client`'s peer range, unless that is the current one.
   */
  readonly packages: readonly string[];
  /** The consumer-role scenario through the adapter: at least one run per version. */
  readonly consumerRole: readonly RoleRun[];
  /**
   * The client matrix (no model: the client's own API): one run per version, or none with the
   * reason when the framework's MCP client cannot be driven without a model.
   */
  readonly clientMatrix: readonly MatrixRun[] | { readonly none: string };
}

/** An adapter of the registry with the runs of its module. */
export interface LoadedAdapter extends ClientAdapter {
  readonly runs: AdapterRuns;
}

/** Every adapter of the registry with its runs; a missing module fails the suite that loads it. */
export async function loadAdapters(): Promise<LoadedAdapter[]> {
  return Promise.all(
    clientAdapters().map(async (adapter) => {
      const module = (await import(`./adapters/${adapter.name}.ts`)) as { runs: AdapterRuns };
      return { ...adapter, runs: module.runs };
    }),
  );
}

/** The installed version of `name` in this package, or in `lowest/` (the lowest claimed). */
export function installedVersion(name: string, version: FrameworkVersion = 'current'): string {
  const where = version === 'current' ? '.' : 'lowest';
  const manifest = new URL(`../${where}/node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** The S2SP error code in a tool result's `_meta`. */
export function codeIn(result: unknown): unknown {
  return (result as { _meta?: Record<string, unknown> } | undefined)?._meta?.['s2sp/error-code'];
}
