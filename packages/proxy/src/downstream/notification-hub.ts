/**
 * Relaying what the upstream announces to every downstream session: logging, progress-free
 * notifications, list changes, and resource updates (only to the sessions that subscribed).
 *
 * @module
 */
import type { Logger } from '@s2sp/server';
import type { Notification, Server, ServerCapabilities, ServerNotification } from '../mcp-sdk.js';
import type { Subscriptions } from './subscriptions.js';

/** Options for {@link createNotificationHub}. */
export interface NotificationHubOptions {
  /** The open downstream servers. */
  readonly servers: () => Iterable<Server>;
  readonly logger: Logger;
  /** Which client (`clientKey`) a session belongs to, when known; for {@link NotificationHub.toolsChangedFor}. */
  readonly clientOf?: (server: Server) => string | undefined;
}

/** The hub. */
export interface NotificationHub {
  /** Passes one upstream notification on. */
  relay(notification: Notification, subscriptions: Subscriptions): void;
  /** Sends `notifications/tools/list_changed` to every session. */
  toolsChanged(): void;
  /** Sends `notifications/tools/list_changed` to the sessions of one client only. */
  toolsChangedFor(client: string): void;
  /** After an upstream restart: every list the upstream can change may have changed. */
  restarted(capabilities: ServerCapabilities): void;
}

/** Creates the hub. */
export function createNotificationHub(options: NotificationHubOptions): NotificationHub {
  const send = (server: Server, notification: Notification) => {
    // A session that closed, or one whose capabilities do not cover the method, just misses it.
    server.notification(notification as ServerNotification).catch(() => {});
  };
  const broadcast = (notification: Notification) => {
    for (const server of options.servers()) {
      try {
        send(server, notification);
      } catch {
        // Capability assertions throw synchronously; see above.
      }
    }
  };
  const toolsChanged = () => broadcast({ method: 'notifications/tools/list_changed' });

  return {
    relay(notification, subscriptions) {
      if (notification.method === 'notifications/resources/updated') {
        const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
        const open = new Set(options.servers());
        for (const session of typeof uri === 'string' ? subscriptions.sessionsFor(uri) : []) {
          if (open.has(session as Server)) {
            try {
              send(session as Server, notification);
            } catch {}
          }
        }
        return;
      }
      options.logger.debug('upstream notification', { method: notification.method });
      broadcast(notification);
    },
    toolsChanged,
    toolsChangedFor(client) {
      for (const server of options.servers()) {
        if (options.clientOf?.(server) !== client) continue;
        try {
          send(server, { method: 'notifications/tools/list_changed' });
        } catch {}
      }
    },
    restarted(capabilities) {
      if (capabilities.tools) toolsChanged();
      if (capabilities.prompts?.listChanged)
        broadcast({ method: 'notifications/prompts/list_changed' });
      if (capabilities.resources?.listChanged) {
        broadcast({ method: 'notifications/resources/list_changed' });
      }
    },
  };
}
