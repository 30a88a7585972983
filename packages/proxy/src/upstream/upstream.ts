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
import { z } from 'zod';
import { askUpstreamForLess } from '../advice.js';
import {
  Client,
  ErrorCode,
  type Implementation,
  LOG_LEVEL_META_KEY,
  McpError,
  ModernClient,
  ModernProtocolError,
  ModernSdkError,
  ModernSdkErrorCode,
  type Notification,
  type PriorDiscovery,
  type Request,
  type RequestOptions,
  ResultSchema,
  SERVER_INFO_META_KEY,
  type ServerCapabilities,
} from '../mcp-sdk.js';
import {
  type ClientRelayOptions,
  createClientRelay,
  RELAYED_CAPABILITIES,
  type RelayTarget,
  relayScope,
} from './client-relay.js';
import { type ClientRound, withClientRound } from './client-round.js';
import { textAsBytes } from './large-strings.js';
import { createListenStream } from './listen-stream.js';
import { mintProgressTokens } from './progress-tokens.js';
import { oversizedLimit } from './result-cap.js';
import { eraVerdict } from './upstream-era.js';
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
  /**
   * The round of a 2026-07-28 client's request as it came (see {@link ClientRound}): to an
   * upstream of that revision the request goes with it, and an `input_required` answer comes back
   * as it came, for the client to answer round for round. A 2025-era upstream ignores it (the
   * proxy bridges its requests to the client: `input-rounds.ts`).
   */
  readonly round?: ClientRound;
};

/** Which protocol era an upstream session speaks: 2026-07-28 (`modern`) or 2025 (`legacy`). */
export type UpstreamEra = PriorDiscovery['kind'];

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

/**
 * A connected upstream session, whichever SDK speaks it: SDK v1's client for a 2025-era upstream
 * (as before negotiation existed), SDK v2's for a 2026-07-28 one.
 */
interface Active {
  request(request: Request, options: RequestOptions, round?: ClientRound): Promise<unknown>;
  notification(notification: Notification): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
}

/** The 2026-07-28 upstream's results, as they come (the proxy passes on what it does not know). */
const AnyResult = z.looseObject({});

/**
 * An SDK v2 error as SDK v1's `McpError`, which `translateError` and the result cap read: the
 * upstream's own JSON-RPC errors keep their code, message and data; a timeout and a closed
 * connection keep their meaning.
 */
function asMcpError(error: unknown): unknown {
  if (error instanceof ModernProtocolError)
    return new McpError(error.code, stripPrefix(error.message, error.code), error.data);
  if (error instanceof ModernSdkError) {
    if (error.code === ModernSdkErrorCode.RequestTimeout)
      return new McpError(ErrorCode.RequestTimeout, error.message, error.data ?? { timeout: true });
    if (error.code === ModernSdkErrorCode.ConnectionClosed)
      return new McpError(ErrorCode.ConnectionClosed, error.message);
  }
  return error;
}

/**
 * Drops a 2026-07-28 result's `_meta` key that describes the hop it came on (the upstream's
 * `serverInfo`): toward its clients the proxy is the server, and a 2025 client talking to the
 * upstream directly would not see it. A `_meta` left empty goes too.
 */
function dropHopMeta(result: Record<string, unknown>): void {
  const meta = result._meta;
  if (typeof meta !== 'object' || meta === null || !(SERVER_INFO_META_KEY in meta)) return;
  const { [SERVER_INFO_META_KEY]: _hop, ...kept } = meta as Record<string, unknown>;
  if (Object.keys(kept).length === 0) delete result._meta;
  else result._meta = kept;
}

function stripPrefix(message: string, code: number): string {
  const prefix = `MCP error ${code}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** The start-up limit of one connection attempt, shared by its probe and its handshake. */
interface Deadline {
  /** Milliseconds left (at least 1, so that an SDK timeout is never 0: "none"). */
  left(): number;
  /** The SDK connect options that stop at the deadline. */
  options(): { timeout: number; signal: AbortSignal };
  /** A timeout error for a failure that came because the deadline passed (an abort). */
  timedOut(error: unknown): unknown;
}

function startupDeadline(ms: number): Deadline {
  const at = Date.now() + ms;
  const left = () => Math.max(0, at - Date.now());
  return {
    left,
    options: () => ({
      timeout: Math.max(1, left()),
      signal: AbortSignal.timeout(Math.max(1, left())),
    }),
    timedOut: (error) =>
      error instanceof McpError && error.code === ErrorCode.RequestTimeout
        ? error
        : new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: ms }),
  };
}

/** A forwarded request's downstream session and, when it can reach its client, its relay. */
interface Caller {
  readonly session: object;
  readonly relay: RelayTarget | undefined;
  /** When it was sent, among this upstream's requests (newest is highest). */
  readonly order: number;
}

/** Why an upstream session could not start, for the person who started the proxy. */
export interface StartFailure {
  /** The upstream's label (its command's name or its URL's origin). */
  readonly label: string;
  /** What the SDK or the upstream said, redacted. */
  readonly said: string;
  /** The child's last output on standard error (stdio), or empty. */
  readonly stderr: string;
  /** Whether the start-up limit passed (rather than the upstream failing). */
  readonly timedOut: boolean;
  /** The start-up limit, in seconds. */
  readonly limitSeconds: number;
}

// The start failures thrown by `start()`, with their facts: the error's message is the
// model-facing one (a client's own session fails on its request); the CLI tells a person instead.
const startFailures = new WeakMap<object, StartFailure>();

/**
 * The facts of an error thrown by {@link Upstream.start} (the session could not start), or
 * undefined for any other error.
 *
 * @param error - what `start()` (or the proxy's `start()`) threw
 */
export function startFailureOf(error: unknown): StartFailure | undefined {
  return typeof error === 'object' && error !== null ? startFailures.get(error) : undefined;
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
  let client: Active | undefined;
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
  const onNotification = async (notification: Notification) =>
    options.onNotification(notification, originOf());
  const onError = (error: Error) =>
    log.warn('upstream: protocol error', {
      upstream: label,
      error: redact(error.message).slice(0, 200),
    });

  /**
   * Which era the upstream speaks: SDK v2's `auto` negotiation (a `server/discover` probe, with
   * its fallback to the 2025 `initialize`), once per proxy process and upstream (see
   * `upstream-era.ts`), on a connection of its own that is then closed.
   */
  const probe = async (deadline: Deadline): Promise<PriorDiscovery> => {
    const prober = new ModernClient(options.clientInfo, {
      versionNegotiation: { mode: 'auto', probe: { timeoutMs: deadline.left() } },
    });
    const transport = openCapped(2);
    try {
      await prober.connect(transport.transport as never, deadline.options());
      const discover = prober.getDiscoverResult();
      return prober.getProtocolEra() === 'modern' && discover
        ? { kind: 'modern', discover }
        : { kind: 'legacy' };
    } catch (error) {
      // A stdio server that exits or errs on a request before `initialize` is a 2025 one; the
      // 2025 handshake then says what is wrong, if anything. Past the start-up limit there is
      // no verdict (a slow server of either era): the start fails.
      if (options.target.kind === 'stdio' && deadline.left() > 0) return { kind: 'legacy' };
      throw error;
    } finally {
      await prober.close().catch(() => {});
      await transport.transport.close().catch(() => {});
    }
  };

  /** A 2026-07-28 session: SDK v2's client, from the probe's verdict (no second probe). */
  const connectModern = async (
    prior: PriorDiscovery,
    transport: OpenedTransport,
    deadline: Deadline,
  ) => {
    const next = new ModernClient(options.clientInfo, {
      capabilities: RELAYED_CAPABILITIES,
      versionNegotiation: { mode: 'auto' },
    });
    // The upstream's input rounds (`input_required`): the SDK fulfils each embedded request
    // through these handlers and retries the call, round for round; each is relayed to the
    // client whose call it is (client-relay.ts), which for a 2026-07-28 client is an input
    // round of its own (input-rounds.ts) and for a 2025 client a request on its session.
    for (const method of ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const) {
      next.setRequestHandler(method, ((
        request: Request,
        ctx: { mcpReq?: { signal?: AbortSignal } },
      ) =>
        relay(
          request as never,
          relayTargetOf(method),
          ctx?.mcpReq?.signal ?? new AbortController().signal,
        )) as never);
    }
    next.fallbackNotificationHandler = onNotification as never;
    next.onerror = onError;
    await next.connect(transport.transport as never, { ...deadline.options(), prior });
    // A 2026-07-28 server sends its list changes and resource updates only on a
    // `subscriptions/listen` stream: this session keeps one (listen-stream.ts), and what comes on
    // it reaches its owner as a 2025 server's notifications do.
    const declared = (next.getServerCapabilities() ?? {}) as ServerCapabilities;
    let connecting = true;
    let logLevel: unknown;
    const listening = createListenStream({
      declared,
      // The first stream opens within the start-up limit; later ones (a subscription changed)
      // within a request's.
      listen: (filter) =>
        next
          .listen(filter, {
            timeout: connecting ? deadline.left() || 1 : options.requestTimeoutMs,
          })
          .catch((error) => {
            throw asMcpError(error);
          }),
    });
    await listening.open().catch((error: Error) => {
      log.warn('upstream: subscriptions/listen failed; its list changes will not reach clients', {
        upstream: label,
        error: redact(error.message).slice(0, 200),
      });
    });
    connecting = false;
    const active: Active = {
      // A 2026-07-28 client's request goes as it came, and its `input_required` answers come
      // back to it (`allowInputRequired`): it answers them itself, round for round. A 2025
      // client's is fulfilled here, each round's requests relayed to it (the handlers above).
      request: async (request, requestOptions, round) => {
        // That revision's subscriptions are the listen stream's filter, not requests.
        const uri = (request.params as { uri?: unknown } | undefined)?.uri;
        if (request.method === 'resources/subscribe' && typeof uri === 'string') {
          await listening.subscribe(uri);
          return {};
        }
        if (request.method === 'resources/unsubscribe' && typeof uri === 'string') {
          await listening.unsubscribe(uri);
          return {};
        }
        // Nor has it `logging/setLevel`: a level is asked for per request, in its envelope; a
        // 2025 client's session level goes with each of its requests (a 2026 client's own
        // envelope carries its own).
        if (request.method === 'logging/setLevel') {
          logLevel = (request.params as { level?: unknown } | undefined)?.level;
          return {};
        }
        const own =
          round ??
          (logLevel === undefined ? undefined : { envelope: { [LOG_LEVEL_META_KEY]: logLevel } });
        const result = await next
          .request((own ? withClientRound(request, own) : request) as never, AnyResult, {
            ...requestOptions,
            ...(round && { allowInputRequired: true }),
          } as never)
          .catch((error) => {
            throw asMcpError(error);
          });
        dropHopMeta(result as Record<string, unknown>);
        return result;
      },
      notification: (notification) => next.notification(notification as never),
      close: async () => {
        await listening.close().catch(() => {});
        await next.close();
      },
    };
    next.onclose = () => active.onclose?.();
    return {
      active,
      era: 'modern' as const,
      capabilities: declared,
      serverInfo: next.getServerVersion() as Implementation | undefined,
      instructions: next.getInstructions(),
    };
  };

  /** A 2025-era session: SDK v1's client, as the proxy always connected. */
  const connectLegacy = async (transport: OpenedTransport, deadline: Deadline) => {
    const next = new Client(options.clientInfo, { capabilities: RELAYED_CAPABILITIES });
    next.fallbackNotificationHandler = onNotification;
    // Requests to a client: relayed to the client whose request is in flight (client-relay.ts).
    next.fallbackRequestHandler = (request, extra) =>
      relay(request, relayTargetOf(request.method), extra.signal) as never;
    next.onerror = onError;
    // Starting a server (npx, a JIT warm-up) can take longer than one request may: it has a
    // limit of its own.
    await next.connect(transport.transport, deadline.options());
    const active: Active = {
      request: (request, requestOptions) => next.request(request, ResultSchema, requestOptions),
      notification: (notification) => next.notification(notification as never),
      close: () => next.close(),
    };
    next.onclose = () => active.onclose?.();
    return {
      active,
      era: 'legacy' as const,
      capabilities: next.getServerCapabilities() ?? {},
      serverInfo: next.getServerVersion(),
      instructions: next.getInstructions(),
    };
  };

  const connectOnce = async (): Promise<void> => {
    let transport: OpenedTransport | undefined;
    let connected: Awaited<ReturnType<typeof connectLegacy | typeof connectModern>>;
    // One start-up limit for the probe and the handshake together.
    const deadline = startupDeadline(options.startupTimeoutMs);
    try {
      const era = await eraVerdict(options.target, () => probe(deadline));
      transport = openCapped(era.kind === 'modern' ? 2 : 1);
      wire(transport);
      connected =
        era.kind === 'modern'
          ? await connectModern(era, transport, deadline)
          : await connectLegacy(transport, deadline);
    } catch (error) {
      // Stops the whole process group of a stdio upstream (stdio-child.ts), and waits for it:
      // the proxy may exit next.
      await transport?.transport.close().catch(() => {});
      const stderr = transport?.stderrTail() ?? '';
      const cause = asMcpError(deadline.left() > 0 ? error : deadline.timedOut(error));
      const said = redact(cause instanceof Error ? cause.message : String(cause));
      const failure = new S2SPError(
        'unavailable',
        `The upstream MCP server ${label} did not complete MCP initialisation (it said: «${said}»).${stderr ? ` Its last output on standard error: «${stderr}».` : ''} ${ifItPersists(`the upstream MCP server ${label}`)}`,
        { cause: error },
      );
      startFailures.set(failure, {
        label,
        said,
        stderr,
        timedOut: cause instanceof McpError && cause.code === ErrorCode.RequestTimeout,
        limitSeconds: options.startupTimeoutMs / 1000,
      });
      throw failure;
    }
    const next = connected.active;
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

  const current = async (): Promise<Active> => {
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
