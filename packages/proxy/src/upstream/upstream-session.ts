/**
 * One connected upstream session, whichever SDK speaks it: SDK v1's client for a 2025-era upstream
 * (`legacy-session.ts`), SDK v2's for a 2026-07-28 one (`modern-session.ts`). The connection
 * (`upstream.ts`) opens one, forwards through it and opens another when it closes.
 *
 * @module
 */
import type {
  Implementation,
  Notification,
  PriorDiscovery,
  Request,
  RequestOptions,
  ServerCapabilities,
} from '../mcp-sdk.js';
import type { ClientRound } from './client-round.js';

/** Which protocol era an upstream session speaks: 2026-07-28 (`modern`) or 2025 (`legacy`). */
export type UpstreamEra = PriorDiscovery['kind'];

/** A connected session. */
export interface UpstreamSession {
  /**
   * Sends a request and resolves with the upstream's result; `round` is a 2026-07-28 client's
   * (see `client-round.ts`: a 2025-era session ignores it).
   */
  request(request: Request, options: RequestOptions, round?: ClientRound): Promise<unknown>;
  notification(notification: Notification): Promise<void>;
  close(): Promise<void>;
  /** Set by the connection: called when the session closes. */
  onclose?: (() => void) | undefined;
}

/** A session and what its handshake told. */
export interface OpenedSession {
  readonly session: UpstreamSession;
  readonly era: UpstreamEra;
  readonly capabilities: ServerCapabilities;
  readonly serverInfo: Implementation | undefined;
  readonly instructions: string | undefined;
}

/** What either kind of session does with the upstream's messages, given by the connection. */
export interface SessionHandlers {
  /** How the proxy introduces itself upstream. */
  readonly clientInfo: Implementation;
  /** Every notification the upstream sends. */
  readonly onNotification: (notification: Notification) => Promise<void>;
  /** A protocol error of the session. */
  readonly onError: (error: Error) => void;
  /** Relays the upstream's request to the client it is for (`client-relay.ts`). */
  readonly relay: (request: Request, signal: AbortSignal) => Promise<Record<string, unknown>>;
}
