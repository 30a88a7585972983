/**
 * The options and handles of {@link createS2SPProxy}.
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import type { Hono } from 'hono';
import type { Server, Transport } from './mcp-sdk.js';
import type { S2SPEdgeOptions, SharedRuntimeOptions, ShutdownOptions } from './tables/s2sp-call.js';
import type { TableToolRule } from './tables/table-tool-rule.js';
import type { UpstreamTarget } from './upstream/upstream-target.js';

/**
 * Options for {@link createS2SPProxy}. The HTTP edge's options (`auth`, `allowedHosts`,
 * `allowedBrowserOrigins`, `requestBodyTimeoutMs`, `maxMcpRequestBytes`, `maxMcpBatchSize`) are
 * the servers' own, with the same defaults: no auth, loopback names and the bound address, 10 s,
 * 4 MiB, 10. `loadEdgeEnv(process.env)` from `@s2sp/server/env` reads them from the environment.
 * `store`, `ttlSeconds` and the token budget are `createS2SP`'s (a table tool's response over the
 * budget is paged: the rows that fit, a `profile` and a `next_cursor`, PROTOCOL §7.2).
 */
export interface S2SPProxyOptions
  extends Omit<S2SPEdgeOptions, 'publicUrl' | 'logger'>,
    SharedRuntimeOptions {
  /** The MCP server to stand in front of: a command on stdio, or a Streamable HTTP URL. */
  readonly upstream: UpstreamTarget;
  /** Base URL advertised in `resource_url`s. Default: the address `listen()` bound. */
  readonly publicUrl?: string;
  /**
   * Cache entries one downstream client may hold: unredeemed results and unread pages. A client
   * is the authenticated client id, else its address (never its MCP session); beyond the limit its table calls answer
   * `store_full`, and other clients are not affected. Default 1,000.
   */
  readonly maxEntriesPerClient?: number;
  /**
   * Bytes of cached rows one downstream client may hold (results and unread pages, counted per
   * client like `maxEntriesPerClient`); beyond it that client's table calls answer `store_full`.
   * Default 64 MiB.
   */
  readonly maxBytesPerClient?: number;
  /**
   * Tool calls one downstream client may have running through the proxy at once; more are
   * refused at once with `unavailable` for that client only. Default 8.
   */
  readonly maxCallsPerClient?: number;
  /**
   * Streamable HTTP sessions one client may hold; its next `initialize` closes its own session
   * idle the longest. Default 10.
   */
  readonly maxSessionsPerClient?: number;
  /** Tools that are table tools from the start (`{ name: 'search', pointer: '/results' }`). */
  readonly tableTools?: readonly TableToolRule[];
  /** Tools that never get S2SP treatment. */
  readonly excludeTools?: readonly string[];
  /**
   * A JSON file where the proxy keeps what it learned about tools across restarts: the table tools
   * that declared schemas and the config made, and each client's own column catalogue under its
   * client key (never another client's). At most 1 MiB, written atomically. Default: none.
   */
  readonly stateFile?: string;
  /** Make a tool a table tool once it returns a table. Default true. */
  readonly detectTables?: boolean;
  /**
   * List the table tools with `_meta["anthropic/alwaysLoad"]: true`, so that a host that defers
   * tools behind a tool search (the Claude Agent SDK) shows them to the model from the first turn.
   * Default false.
   */
  readonly alwaysLoadTableTools?: boolean;
  /**
   * Time limit of one upstream request (reset by progress), of one request the upstream relays to
   * a client, and of a client's answer to one input round, in seconds. Default 60.
   */
  readonly timeoutSeconds?: number;
  /**
   * Time limit of starting one upstream session and completing its MCP initialisation (the
   * one opened at start, and each client's own), in seconds. Default 120.
   */
  readonly startupTimeoutSeconds?: number;
  /** First restart delay of a crashed upstream, in ms (doubles up to 30 s). Default 500. */
  readonly restartDelayMs?: number;
  /** Largest tool-result text the proxy parses looking for a table, in characters. Default 64 Mi. */
  readonly maxResultChars?: number;
  /**
   * The most bytes one upstream answer may have (a JSON body or SSE event over HTTP, a line on
   * stdio). A larger answer fails only its own request, with `payload_too_large`: its bytes are
   * dropped as they arrive and the upstream is not restarted. Default 64 MiB.
   */
  readonly maxUpstreamResultBytes?: number;
  /**
   * Most concurrent Streamable HTTP sessions. Default 100. A new one beyond it closes the
   * session idle the longest.
   */
  readonly maxSessions?: number;
  /**
   * One upstream session for every client, instead of one per client (the default). Only for an
   * upstream that keeps no state per session: clients then share its state, and a request the
   * upstream sends to a client that no call relates is refused unless exactly one client is
   * connected. Default `false`.
   */
  readonly sharedUpstream?: boolean;
  /**
   * Upstream sessions open at once, one per client (a stdio upstream runs a process for each).
   * A client beyond it is refused with `unavailable` until one closes. Default 32.
   */
  readonly maxUpstreamSessions?: number;
  /**
   * How long a client without an MCP session of its own (a 2026-07-28 client, known by its
   * credential or address) keeps its upstream session after its last request, in seconds; a
   * 2025-era client's closes with its MCP session. Default 600.
   */
  readonly upstreamIdleSeconds?: number;
  /** Where to log. Default: standard error at `info`. Never logs tokens. */
  readonly logger?: Logger;
  /** The upstream child's standard error. Default: copied to the proxy's standard error. */
  readonly onUpstreamStderr?: (chunk: string) => void;
}

/** Options for {@link S2SPProxy.listen}. */
export interface ProxyListenOptions {
  /** Port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface to bind. Default `127.0.0.1`. */
  readonly host?: string;
}

/** The proxy's HTTP listener. */
export interface ProxyListener extends AsyncDisposable {
  /** `http://127.0.0.1:3010` */
  readonly url: string;
  /** The Streamable HTTP MCP endpoint. */
  readonly mcpUrl: string;
  readonly port: number;
  close(): Promise<void>;
  /**
   * Drains the listener: new requests get 503 `unavailable` with `Retry-After`, running ones get
   * up to `graceMs` (default `shutdownGraceMs`) to finish; then it closes.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
}

/** A running proxy. Created by {@link createS2SPProxy}. */
export interface S2SPProxy {
  /** Connects to the upstream; rejects with a clear message if it cannot start. */
  start(): Promise<void>;
  /** Serves `/mcp` and the data plane on HTTP. Call `start()` first. */
  listen(options?: ProxyListenOptions): Promise<ProxyListener>;
  /** Serves MCP on this process's standard input and output (the data plane needs `listen`). */
  connectStdio(): Promise<Server>;
  /** Connects a downstream MCP transport of your own (tests, in-memory). */
  connect(transport: Transport): Promise<Server>;
  /** The Hono app: `/mcp`, `/s2sp/data/:token`, `/s2sp/health`. */
  readonly app: Hono;
  /** How often the upstream was restarted after a crash (every client's session counted). */
  upstreamRestarts(): number;
  /** Upstream sessions open now: one per client, or the one shared session. */
  upstreamSessions(): number;
  close(): Promise<void>;
  /**
   * The graceful {@link S2SPProxy.close}, for SIGTERM: the listeners drain first (running tool
   * calls and redemptions finish within `graceMs`, default `shutdownGraceMs`; new requests get
   * 503), then sessions, the upstream and the store connection close. Stored entries stay.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
}
