/**
 * The proxy's connection to its upstream MCP server: start it within the start-up limit (its era
 * probed once, then a session of that era: `era-probe.ts`, `legacy-session.ts`,
 * `modern-session.ts`), forward requests with a time limit and a byte cap, tell whose the
 * upstream's messages are (`request-callers.ts`), and restart a crashed server with exponential
 * backoff.
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { S2SPError } from '@s2sp/core';
import { retryShortly } from '@s2sp/core/advice';
import { askUpstreamForLess } from '../advice.js';
import {
  ErrorCode,
  type Implementation,
  McpError,
  type Notification,
  type Request,
  type RequestOptions,
  type ServerCapabilities,
} from '../mcp-sdk.js';
import { type ClientRelayOptions, createClientRelay, relayScope } from './client-relay.js';
import type { ClientRound } from './client-round.js';
import { probeEra } from './era-probe.js';
import { textAsBytes } from './large-strings.js';
import { openLegacySession } from './legacy-session.js';
import { asMcpError } from './modern-errors.js';
import { openModernSession } from './modern-session.js';
import { mintProgressTokens } from './progress-tokens.js';
import {
  createRequestCallers,
  type NotificationOrigin,
  type UnrelatedRequest,
} from './request-callers.js';
import { oversizedLimit } from './result-cap.js';
import { createStartDeadline } from './start-deadline.js';
import { startFailure } from './start-failures.js';
import { eraVerdict } from './upstream-era.js';
import { translateError } from './upstream-errors.js';
import { dropS2SPMeta } from './upstream-meta.js';
import type { OpenedSession, UpstreamEra, UpstreamSession } from './upstream-session.js';
import {
  describeTarget,
  type OpenedTransport,
  openTransport,
  redactTarget,
  type UpstreamTarget,
} from './upstream-target.js';

/** Options for {@link createUpstream}. */
export interface UpstreamOptions {
  readonly target: UpstreamTarget;
  readonly logger: Logger;
  /** The servers' per-client limit, for the relay's cap (`GATEWAY_PARTS`). */
  readonly createClientLimit: ClientRelayOptions['createClientLimit'];
  /** How the proxy introduces itself upstream. */
  readonly clientInfo: Implementation;
  /** The most bytes one answer may have; a larger one fails its own request only. */
  readonly maxResultBytes: number;
  /** Time limit of one request (reset by progress notifications), in ms. */
  readonly requestTimeoutMs: number;
  /** Time limit of starting the server and completing MCP initialisation, in ms. */
  readonly startupTimeoutMs: number;
  /** First restart delay, in ms; doubles per failed attempt up to {@link maxRestartDelayMs}. */
  readonly restartDelayMs: number;
  readonly maxRestartDelayMs: number;
  /**
   * Every notification the upstream sends (progress and cancellation are routed by the SDK;
   * progress goes only to the request whose token the proxy minted, see `progress-tokens.ts`),
   * with the downstream session it belongs to when that can be told (see
   * {@link NotificationOrigin}).
   */
  readonly onNotification: (notification: Notification, origin: NotificationOrigin) => void;
  /**
   * Where an upstream request to a client goes when no forwarded request relates it (stdio, the
   * standalone GET stream): given the newest forwarded request in flight that can reach its
   * client, the target the proxy chooses, or none (refused). The proxy decides by who owns this
   * upstream session (see `upstream-pool.ts`). Default: refused.
   */
  readonly unrelated?: UnrelatedRequest;
  /** Called after a restarted upstream has finished initialisation. */
  readonly onRestarted: () => void;
  /** The child's standard error. Default: copied to the proxy's standard error. */
  readonly onStderr?: (chunk: string) => void;
}

/** What a forwarded request may carry. */
export type ForwardOptions = Pick<RequestOptions, 'signal' | 'onprogress'> & {
  /**
   * The downstream session the request is made for (any object; the proxy passes its `Server`),
   * so that a notification the upstream sends about this request reaches that session only.
   */
  readonly caller?: object;
  /**
   * The answer's first large text block (1 MiB or more) as bytes, a `LargeText` in place of its
   * string (stdio upstreams; over HTTP it stays a string). The caller must read every such block
   * through `LargeText` (a result with one must not be returned as it is).
   */
  readonly textAsBytes?: boolean;
  /**
   * The round of a 2026-07-28 client's request as it came (see {@link ClientRound}): to an
   * upstream of that revision the request goes with it, and an `input_required` answer comes back
   * as it came, for the client to answer round for round. A 2025-era upstream ignores it (the
   * proxy bridges its requests to the client: `input-rounds.ts`).
   */
  readonly round?: ClientRound;
};

/** The live upstream connection. */
export interface Upstream {
  /** Connects for the first time; rejects with a message a person can act on. */
  start(): Promise<void>;
  /**
   * Sends a request and returns the upstream's result as it came, except for the S2SP keys of
   * its `_meta` (never passed on as the proxy's own: see `upstream-meta.ts`).
   */
  request(request: Request, options?: ForwardOptions): Promise<Record<string, unknown>>;
  /** Capabilities the upstream declared at its last initialisation. */
  capabilities(): ServerCapabilities;
  /** The era the upstream speaks (known once started). */
  era(): UpstreamEra | undefined;
  serverInfo(): Implementation | undefined;
  instructions(): string | undefined;
  /** How many times the upstream was restarted. */
  restarts(): number;
  /** Sends a notification upstream (a client's `notifications/roots/list_changed`). */
  notify(notification: Notification): Promise<void>;
  close(): Promise<void>;
}

// A restarted server that then lived this long is healthy again: the backoff starts over.
const STABLE_MS = 30_000;
// How long a request waits for a restarting upstream before it fails.
const MAX_WAIT_FOR_RESTART_MS = 10_000;

/**
 * Creates the upstream connection (call `start()`).
 *
 * @param options - target, timeouts, backoff and notification sinks
 */
export function createUpstream(options: UpstreamOptions): Upstream {
  const label = describeTarget(options.target);
  // Upstream URLs may carry credentials or a token in the query: never in a log or an error.
  const redact = (text: string) => redactTarget(text, options.target);
  const log = options.logger;
  const onStderr = options.onStderr ?? ((chunk: string) => process.stderr.write(chunk));
  let client: UpstreamSession | undefined;
  let opened: OpenedTransport | undefined;
  let ready: Promise<void> = Promise.resolve();
  let closed = false;
  let attempt = 0;
  let restarts = 0;
  let connectedAt = 0;
  let capabilities: ServerCapabilities = {};
  let serverInfo: Implementation | undefined;
  let instructions: string | undefined;
  let era: UpstreamEra | undefined;
  const callers = createRequestCallers(options.unrelated);
  const relay = createClientRelay({
    timeoutMs: options.requestTimeoutMs,
    createClientLimit: options.createClientLimit,
  });

  const openCapped = (sdk: 1 | 2) =>
    openTransport(
      options.target,
      onStderr,
      {
        maxBytes: options.maxResultBytes,
        onDropped: (id) =>
          log.warn('upstream: an answer over the byte cap was dropped; its request fails', {
            upstream: label,
            maxResultBytes: options.maxResultBytes,
            request: id === undefined ? 'unknown' : 'answered with payload_too_large',
          }),
      },
      sdk,
    );

  /** Wires what every session does with the upstream's messages, on its transport. */
  const wire = (transport: OpenedTransport) =>
    // Progress tokens nobody can guess, so that progress reaches only the request it is for.
    mintProgressTokens(transport.transport, () =>
      log.debug('upstream: progress for a token the proxy did not mint was dropped', {
        upstream: label,
      }),
    );
  const handlers = {
    clientInfo: options.clientInfo,
    onNotification: async (notification: Notification) =>
      options.onNotification(notification, callers.originOf()),
    onError: (error: Error) =>
      log.warn('upstream: protocol error', {
        upstream: label,
        error: redact(error.message).slice(0, 200),
      }),
    // Requests to a client: relayed to the client whose request is in flight (client-relay.ts).
    relay: (request: Request, signal: AbortSignal) =>
      relay(request, callers.relayTargetOf(request.method), signal),
    requestTimeoutMs: options.requestTimeoutMs,
    onListenFailed: (error: Error) =>
      log.warn('upstream: subscriptions/listen failed; its list changes will not reach clients', {
        upstream: label,
        error: redact(error.message).slice(0, 200),
      }),
  };

  const connectOnce = async (): Promise<void> => {
    let transport: OpenedTransport | undefined;
    let connected: OpenedSession;
    // One start-up limit for the probe and the handshake together.
    const deadline = createStartDeadline(options.startupTimeoutMs);
    try {
      const era = await eraVerdict(options.target, () =>
        probeEra({
          clientInfo: options.clientInfo,
          open: () => openCapped(2),
          stdio: options.target.kind === 'stdio',
          deadline,
        }),
      );
      transport = openCapped(era.kind === 'modern' ? 2 : 1);
      wire(transport);
      connected =
        era.kind === 'modern'
          ? await openModernSession(era, transport, deadline, handlers)
          : await openLegacySession(transport, deadline, handlers);
    } catch (error) {
      // Stops the whole process group of a stdio upstream (stdio-child.ts), and waits for it:
      // the proxy may exit next.
      await transport?.transport.close().catch(() => {});
      const stderr = transport?.stderrTail() ?? '';
      const cause = asMcpError(deadline.left() > 0 ? error : deadline.timedOut(error));
      throw startFailure(
        {
          label,
          said: redact(cause instanceof Error ? cause.message : String(cause)),
          stderr,
          timedOut: cause instanceof McpError && cause.code === ErrorCode.RequestTimeout,
          limitSeconds: options.startupTimeoutMs / 1000,
        },
        error,
      );
    }
    const next = connected.session;
    client = next;
    era = connected.era;
    opened = transport;
    connectedAt = Date.now();
    capabilities = connected.capabilities;
    serverInfo = connected.serverInfo;
    instructions = connected.instructions;
    next.onclose = () => {
      if (client !== next || closed) return;
      client = undefined;
      scheduleRestart();
    };
  };

  const delay = () => Math.min(options.maxRestartDelayMs, options.restartDelayMs * 2 ** attempt);

  const scheduleRestart = () => {
    if (Date.now() - connectedAt > STABLE_MS) attempt = 0;
    const wait = delay();
    log.warn('upstream: connection lost; restarting', {
      upstream: label,
      attempt: attempt + 1,
      delayMs: wait,
      stderr: opened?.stderrTail().split('\n').at(-1)?.slice(0, 200),
    });
    ready = (async () => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, delay()));
        if (closed) return;
        attempt++;
        try {
          await connectOnce();
          restarts++;
          log.info('upstream: restarted', { upstream: label, restarts });
          options.onRestarted();
          return;
        } catch (error) {
          log.warn('upstream: restart failed; retrying', {
            upstream: label,
            attempt,
            delayMs: delay(),
            error:
              error instanceof Error
                ? redact(error.message).split('\n')[0]?.slice(0, 200)
                : undefined,
          });
        }
      }
    })();
  };

  const current = async (): Promise<UpstreamSession> => {
    if (client) return client;
    if (closed) throw new S2SPError('unavailable', 'The proxy is shutting down.');
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      ready.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(
          () => resolve(false),
          Math.min(options.requestTimeoutMs, MAX_WAIT_FOR_RESTART_MS),
        );
      }),
    ]);
    clearTimeout(timer);
    if (waited && client) return client;
    throw new S2SPError(
      'unavailable',
      `The upstream MCP server ${label} is not running; the proxy is restarting it. ${retryShortly}`,
    );
  };

  return {
    async start() {
      await connectOnce();
      log.info('upstream: connected', {
        upstream: label,
        server: serverInfo ? `${serverInfo.name}@${serverInfo.version}` : undefined,
      });
    },

    async request(request, forward = {}) {
      const { caller, textAsBytes: asBytes, round, ...sdkOptions } = forward;
      const active = await current();
      const sendNow = () =>
        active.request(
          request,
          { ...sdkOptions, timeout: options.requestTimeoutMs, resetTimeoutOnProgress: true },
          round,
        );
      const send = asBytes ? () => textAsBytes.run(true, sendNow) : sendNow;
      try {
        // Made for `caller`, as part of the downstream request being answered (set by the
        // downstream server around its handler): what the upstream sends with it is theirs.
        const result = (await (caller
          ? callers.run(caller, relayScope.getStore(), send)
          : send())) as Record<string, unknown>;
        // Its S2SP `_meta` keys are not the proxy's to pass on (see upstream-meta.ts).
        const dropped = dropS2SPMeta(result);
        if (dropped > 0) {
          log.debug('upstream: S2SP _meta keys of a result dropped', {
            upstream: label,
            method: request.method,
            keys: dropped,
          });
        }
        return result;
      } catch (error) {
        const limit = error instanceof McpError ? oversizedLimit(error.data) : undefined;
        if (limit !== undefined) {
          throw new S2SPError(
            'payload_too_large',
            `The upstream MCP server ${label} answered with more than ${limit} bytes. ${askUpstreamForLess('maxUpstreamResultBytes (--max-upstream-result-bytes)')}`,
            { data: { limit } },
          );
        }
        // An HTTP upstream that lost our session (restarted, or a 404) does not close the
        // client by itself: close it, which reconnects through the restart path.
        if (options.target.kind === 'http' && !(error instanceof McpError) && client === active) {
          void active.close();
        }
        throw translateError(error, label, options.requestTimeoutMs, forward.signal, redact);
      }
    },

    capabilities: () => capabilities,
    era: () => era,
    serverInfo: () => serverInfo,
    instructions: () => instructions,
    restarts: () => restarts,

    async notify(notification) {
      await client?.notification(notification as never);
    },

    async close() {
      closed = true;
      const active = client;
      client = undefined;
      await active?.close();
    },
  };
}
