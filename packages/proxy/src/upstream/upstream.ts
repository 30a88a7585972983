/**
 * The proxy's one connection to its upstream MCP server: connect, forward requests with a time
 * limit, and restart a crashed server with exponential backoff.
 *
 * @module
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@s2sp/core';
import { S2SPError } from '@s2sp/core';
import { ifItPersists, retryShortly } from '@s2sp/core/advice';
import { askUpstreamForLess } from '../advice.js';
import {
  Client,
  type Implementation,
  McpError,
  type Notification,
  type Request,
  type RequestOptions,
  ResultSchema,
  type ServerCapabilities,
} from '../mcp-sdk.js';
import {
  type ClientRelayOptions,
  createClientRelay,
  RELAYED_CAPABILITIES,
  type RelayTarget,
  relayScope,
} from './client-relay.js';
import { textAsBytes } from './large-strings.js';
import { mintProgressTokens } from './progress-tokens.js';
import { oversizedLimit } from './result-cap.js';
import { translateError } from './upstream-errors.js';
import { dropS2SPMeta } from './upstream-meta.js';
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
  readonly unrelated?: (method: string, newest: RelayTarget | undefined) => RelayTarget | undefined;
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
};

/**
 * Which downstream session an upstream notification belongs to.
 *
 * - `request`: it came on the Streamable HTTP response stream of a request made for `session`
 *   (an MCP server sends a request's notifications there: the SDK's `relatedRequestId`).
 * - `only-caller`: it cannot be told (stdio, or the standalone GET stream), but `session` was the
 *   only one with a request in flight.
 * - `unknown`: neither; no session may be assumed.
 */
export type NotificationOrigin =
  | { readonly by: 'request' | 'only-caller'; readonly session: object }
  | { readonly by: 'unknown'; readonly session?: undefined };

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
  serverInfo(): Implementation | undefined;
  instructions(): string | undefined;
  /** How many times the upstream was restarted. */
  restarts(): number;
  /** Sends a notification upstream (a client's `notifications/roots/list_changed`). */
  notify(notification: Notification): Promise<void>;
  close(): Promise<void>;
}

/** A forwarded request's downstream session and, when it can reach its client, its relay. */
interface Caller {
  readonly session: object;
  readonly relay: RelayTarget | undefined;
  /** When it was sent, among this upstream's requests (newest is highest). */
  readonly order: number;
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
  let client: Client | undefined;
  let opened: OpenedTransport | undefined;
  let ready: Promise<void> = Promise.resolve();
  let closed = false;
  let attempt = 0;
  let restarts = 0;
  let connectedAt = 0;
  let capabilities: ServerCapabilities = {};
  let serverInfo: Implementation | undefined;
  let instructions: string | undefined;
  let sent = 0;
  // The session each request is made for (and the downstream request it forwards, for relaying
  // the upstream's requests to its client), carried through the SDK client's asynchronous work:
  // the Streamable HTTP transport reads a request's response stream in a task started by that
  // request's send, so a message read from it is handled with that request's caller as the
  // store. Messages read elsewhere (stdio, the GET stream) have none.
  const callers = new AsyncLocalStorage<Caller>();
  // Requests in flight per caller, newest last, for messages that cannot be attributed.
  const inFlight = new Map<object, Caller[]>();
  const originOf = (): NotificationOrigin => {
    const own = callers.getStore();
    if (own) return { by: 'request', session: own.session };
    if (inFlight.size === 1) {
      const [only] = inFlight.keys();
      if (only) return { by: 'only-caller', session: only };
    }
    return { by: 'unknown' };
  };
  // The downstream request an upstream request to a client is for: the one it came with, else
  // whatever the owner of this upstream session decides (see `UpstreamOptions.unrelated`).
  const relayTargetOf = (method: string): RelayTarget | undefined => {
    const own = callers.getStore();
    if (own) return own.relay;
    let newest: Caller | undefined;
    for (const calls of inFlight.values()) {
      const last = calls.findLast((call) => call.relay !== undefined);
      if (last && (!newest || last.order > newest.order)) newest = last;
    }
    return options.unrelated?.(method, newest?.relay);
  };
  const relay = createClientRelay({
    timeoutMs: options.requestTimeoutMs,
    createClientLimit: options.createClientLimit,
  });

  const connectOnce = async (): Promise<void> => {
    const next = new Client(options.clientInfo, { capabilities: RELAYED_CAPABILITIES });
    const transport = openTransport(options.target, onStderr, {
      maxBytes: options.maxResultBytes,
      onDropped: (id) =>
        log.warn('upstream: an answer over the byte cap was dropped; its request fails', {
          upstream: label,
          maxResultBytes: options.maxResultBytes,
          request: id === undefined ? 'unknown' : 'answered with payload_too_large',
        }),
    });
    // Progress tokens nobody can guess, so that progress reaches only the request it is for.
    mintProgressTokens(transport.transport, () =>
      log.debug('upstream: progress for a token the proxy did not mint was dropped', {
        upstream: label,
      }),
    );
    next.fallbackNotificationHandler = async (notification) =>
      options.onNotification(notification, originOf());
    // Requests to a client: relayed to the client whose request is in flight (client-relay.ts).
    next.fallbackRequestHandler = (request, extra) =>
      relay(request, relayTargetOf(request.method), extra.signal) as never;
    next.onerror = (error) =>
      log.warn('upstream: protocol error', {
        upstream: label,
        error: redact(error.message).slice(0, 200),
      });
    try {
      // Starting a server (npx, a JIT warm-up) can take longer than one request may.
      await next.connect(transport.transport, {
        timeout: Math.max(options.requestTimeoutMs, 30_000),
      });
    } catch (error) {
      await next.close().catch(() => {});
      const stderr = transport.stderrTail();
      throw new S2SPError(
        'unavailable',
        `The upstream MCP server ${label} did not complete MCP initialisation (it said: «${redact(error instanceof Error ? error.message : String(error))}»).${stderr ? ` Its last output on standard error: «${stderr}».` : ''} ${ifItPersists(`the upstream MCP server ${label}`)}`,
        { cause: error },
      );
    }
    client = next;
    opened = transport;
    connectedAt = Date.now();
    capabilities = next.getServerCapabilities() ?? {};
    serverInfo = next.getServerVersion();
    instructions = next.getInstructions();
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

  const current = async (): Promise<Client> => {
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
      const { caller, textAsBytes: asBytes, ...sdkOptions } = forward;
      const active = await current();
      const sendNow = () =>
        active.request(request, ResultSchema, {
          ...sdkOptions,
          timeout: options.requestTimeoutMs,
          resetTimeoutOnProgress: true,
        });
      const send = asBytes ? () => textAsBytes.run(true, sendNow) : sendNow;
      // The downstream request being answered (set by the downstream server around its handler).
      const target = relayScope.getStore();
      const call: Caller | undefined = caller && {
        session: caller,
        relay: target,
        order: ++sent,
      };
      if (call) inFlight.set(call.session, [...(inFlight.get(call.session) ?? []), call]);
      try {
        const result = (await (call ? callers.run(call, send) : send())) as Record<string, unknown>;
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
      } finally {
        if (call) {
          const left = (inFlight.get(call.session) ?? []).filter((other) => other !== call);
          if (left.length > 0) inFlight.set(call.session, left);
          else inFlight.delete(call.session);
        }
      }
    },

    capabilities: () => capabilities,
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
