/**
 * Relaying what the upstream announces to the downstream sessions, each to the sessions it
 * concerns — the proxy is a gateway shared by clients that must not see each other's traffic:
 *
 * - list changes (tools, prompts, resources) go to every session: they concern everyone;
 * - `notifications/resources/updated` goes only to the sessions subscribed to the URI;
 * - anything else (log messages above all) goes only to the session whose request it came
 *   with, or, when that cannot be told, to the one session with a request in flight; with no
 *   such session it goes to the proxy's own log, never to everyone.
 *
 * Log levels are per session: the proxy answers `logging/setLevel` itself, drops for each session
 * the messages below the level it asked for, and sets the upstream's level to the most verbose
 * one any open session wants, so that one session's level never changes what another receives.
 *
 * @module
 */
import type { Logger } from '@s2sp/core';
import {
  type LoggingLevel,
  LoggingLevelSchema,
  type Notification,
  type Server,
  type ServerCapabilities,
  type ServerNotification,
} from '../mcp-sdk.js';
import type { NotificationOrigin } from '../upstream/request-callers.js';
import type { Subscriptions } from './subscriptions.js';

/** Options for {@link createNotificationHub}. */
export interface NotificationHubOptions {
  /** The open downstream servers. */
  readonly servers: () => Iterable<Server>;
  readonly logger: Logger;
  /** Which client (`clientKey`) a session belongs to, when known; for {@link NotificationHub.toolsChangedFor}. */
  readonly clientOf?: (server: Server) => string | undefined;
  /**
   * Sets the upstream's log level (`logging/setLevel`). Called only when the level the open
   * sessions need changes, one call at a time.
   */
  readonly setUpstreamLevel: (level: LoggingLevel) => Promise<unknown>;
  /**
   * Also told of every list change the hub sends sessions (and every resource update), for the
   * 2026-07-28 clients, which have no session: their `subscriptions/listen` streams take them —
   * one client's only, when `client` is given.
   */
  readonly listeners?: (notification: Notification, client?: string) => void;
}

/** The hub. */
export interface NotificationHub {
  /** Passes one upstream notification on, to the sessions it concerns (see the module). */
  relay(notification: Notification, origin: NotificationOrigin, subscriptions: Subscriptions): void;
  /** Sends `notifications/tools/list_changed` to every session. */
  toolsChanged(): void;
  /** Sends `notifications/tools/list_changed` to the sessions of one client only. */
  toolsChangedFor(client: string): void;
  /**
   * A session's `logging/setLevel`: recorded for that session, and the upstream's level set to
   * the most verbose one the open sessions need. Resolves when the upstream has it.
   */
  setLevel(session: Server, level: LoggingLevel): Promise<void>;
  /**
   * Records a session's level for what is delivered to it, without setting the shared
   * upstream's: a session with an upstream session of its own sets that one's itself (and an
   * upstream that ignores levels is filtered here all the same).
   */
  filterAt(session: Server, level: LoggingLevel): void;
  /** A session closed: its level no longer counts. */
  closed(session: Server): void;
  /** After an upstream restart: every list the upstream can change may have changed. */
  restarted(capabilities: ServerCapabilities): void;
  /**
   * Passes one notification to one session (what that session's own upstream session sent),
   * below the level it asked for dropped.
   */
  deliver(notification: Notification, session: Server): void;
}

/**
 * What a restarted upstream session may have changed: a list-change notification for every list
 * it declares.
 *
 * @param capabilities - what the upstream declared
 */
export function listChanges(capabilities: ServerCapabilities): Notification[] {
  return [
    ...(capabilities.tools ? [{ method: 'notifications/tools/list_changed' }] : []),
    ...(capabilities.prompts?.listChanged
      ? [{ method: 'notifications/prompts/list_changed' }]
      : []),
    ...(capabilities.resources?.listChanged
      ? [{ method: 'notifications/resources/list_changed' }]
      : []),
  ];
}

// Least to most severe (RFC 5424 order, as MCP lists them).
const SEVERITY: ReadonlyMap<LoggingLevel, number> = new Map(
  LoggingLevelSchema.options.map((level, index) => [level, index]),
);
const severity = (level: unknown): number => SEVERITY.get(level as LoggingLevel) ?? 0;
const MOST_VERBOSE = LoggingLevelSchema.options[0];

/** Creates the hub. */
export function createNotificationHub(options: NotificationHubOptions): NotificationHub {
  const { logger } = options;
  const levels = new Map<Server, LoggingLevel>();
  // The level the upstream was last set to, if the proxy ever set one.
  let applied: LoggingLevel | undefined;
  let applying: Promise<void> = Promise.resolve();

  const send = (server: Server, notification: Notification) => {
    try {
      // A session that closed, or one whose capabilities do not cover the method, just misses it
      // (capability assertions throw synchronously, a closed transport rejects).
      server.notification(notification as ServerNotification).catch(() => {});
    } catch {}
  };
  const broadcast = (notification: Notification) => {
    for (const server of options.servers()) send(server, notification);
    options.listeners?.(notification);
  };
  const toolsChanged = () => broadcast({ method: 'notifications/tools/list_changed' });

  /**
   * The most verbose level an open session needs. A session that never set one receives what
   * the upstream sends by default, so it counts as the most verbose; with no session having set
   * a level, the upstream is left at its own default.
   */
  const needed = (): LoggingLevel | undefined => {
    let asked = false;
    let most: LoggingLevel | undefined;
    for (const server of options.servers()) {
      const level = levels.get(server);
      if (level) asked = true;
      const wanted = level ?? MOST_VERBOSE;
      if (most === undefined || severity(wanted) < severity(most)) most = wanted;
    }
    return asked || applied !== undefined ? most : undefined;
  };

  const apply = (level: LoggingLevel | undefined): Promise<void> => {
    if (level === undefined || level === applied) return applying;
    applied = level;
    applying = applying.then(() =>
      options.setUpstreamLevel(level).then(
        () => logger.debug('upstream log level set', { level }),
        (error: unknown) =>
          logger.warn('upstream: logging/setLevel failed', {
            level,
            error: error instanceof Error ? error.message.slice(0, 200) : undefined,
          }),
      ),
    );
    return applying;
  };

  const toSession = (
    notification: Notification,
    origin: NotificationOrigin,
    session: Server | undefined,
  ) => {
    const level = (notification.params as { level?: unknown } | undefined)?.level;
    if (!session) {
      // Nobody it can be shown to without showing it to the wrong client: the operator's log.
      logger.debug('upstream notification not relayed: no session it belongs to', {
        method: notification.method,
        ...(typeof level === 'string' && { level }),
      });
      return;
    }
    if (notification.method === 'notifications/message') {
      const asked = levels.get(session);
      if (asked && severity(level) < severity(asked)) return;
    }
    logger.debug('upstream notification', { method: notification.method, to: origin.by });
    send(session, notification);
  };

  return {
    relay(notification, origin, subscriptions) {
      const open = new Set(options.servers());
      if (notification.method === 'notifications/resources/updated') {
        const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
        for (const session of typeof uri === 'string' ? subscriptions.sessionsFor(uri) : []) {
          if (open.has(session as Server)) send(session as Server, notification);
        }
        options.listeners?.(notification);
        return;
      }
      if (notification.method.endsWith('/list_changed')) {
        logger.debug('upstream notification', { method: notification.method, to: 'all' });
        broadcast(notification);
        return;
      }
      const session = origin.session as Server | undefined;
      toSession(notification, origin, session && open.has(session) ? session : undefined);
    },
    toolsChanged,
    deliver: (notification, session) =>
      toSession(notification, { by: 'request', session }, session),
    toolsChangedFor(client) {
      options.listeners?.({ method: 'notifications/tools/list_changed' }, client);
      for (const server of options.servers()) {
        if (options.clientOf?.(server) !== client) continue;
        try {
          send(server, { method: 'notifications/tools/list_changed' });
        } catch {}
      }
    },
    setLevel(session, level) {
      levels.set(session, level);
      return apply(needed());
    },
    filterAt(session, level) {
      levels.set(session, level);
    },
    closed(session) {
      if (!levels.delete(session) && applied === undefined) return;
      void apply(needed());
    },
    restarted(capabilities) {
      for (const notification of listChanges(capabilities)) broadcast(notification);
      // A new upstream process starts at its own default level.
      applied = undefined;
      if (capabilities.logging) void apply(needed());
    },
  };
}
