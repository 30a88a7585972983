/**
 * One reader of what a tool handler's second argument carries, whichever MCP SDK made it: v1's
 * `extra` (`signal`, `_meta`, `sendNotification`, `authInfo`, `requestInfo`) or v2's `ctx`
 * (`mcpReq.signal`, `mcpReq._meta`, `mcpReq.notify`, `http.authInfo`, `http.req`). Read by shape,
 * never by class, so that both majors (and any copy of either) are served alike.
 *
 * @module
 */

/** A notification as either SDK sends it. */
interface OutgoingNotification {
  method: string;
  params?: Record<string, unknown>;
}

type HeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

/** What S2SP reads of the SDKs' `AuthInfo`. */
interface AuthInfoLike {
  readonly clientId?: string | undefined;
  readonly token?: string | undefined;
}

/**
 * A tool handler's second argument, from MCP SDK v1 (`extra`) or v2 (`ctx`): every member this
 * package reads, optional, so that either SDK's object (and a plain object in a test) fits.
 */
export interface ToolCall {
  /** v1: the request's abort signal. */
  readonly signal?: AbortSignal | undefined;
  /** v1: the request's `_meta` (progress token, `traceparent`). */
  readonly _meta?: object | undefined;
  /** v1: sends a notification related to the request. */
  readonly sendNotification?: ((notification: never) => Promise<void>) | undefined;
  /** v1 and v2: the MCP session, where the transport has one (2025 era only). */
  readonly sessionId?: string | undefined;
  /** v1: the validated access token. */
  readonly authInfo?: AuthInfoLike | undefined;
  /** v1: the HTTP request's headers and URL. */
  readonly requestInfo?:
    | { readonly headers?: HeaderRecord | undefined; readonly url?: URL | undefined }
    | undefined;
  /** v2: the MCP request. */
  readonly mcpReq?:
    | {
        readonly signal?: AbortSignal | undefined;
        readonly _meta?: object | undefined;
        readonly notify?: ((notification: never) => Promise<void>) | undefined;
      }
    | undefined;
  /** v2: the HTTP request and the validated access token. */
  readonly http?:
    | {
        readonly authInfo?: AuthInfoLike | undefined;
        readonly req?: { readonly url: string; readonly headers: Headers } | undefined;
      }
    | undefined;
}

/** What S2SP reads from a tool call, the same for both SDKs. */
export interface ToolCallView {
  /** Aborted when the client cancels the call (or the HTTP request goes away). */
  readonly signal: AbortSignal | undefined;
  /** The request's `_meta`: `progressToken`, `traceparent`, `tracestate`. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** Sends a notification about this request, or `undefined` when the SDK offers none. */
  readonly notify: ((notification: OutgoingNotification) => Promise<void>) | undefined;
  /** The authenticated client's id, when an access token named one. */
  readonly clientId: string | undefined;
  /** The validated access token itself, when there is one (never log it). */
  readonly token: string | undefined;
  /** The MCP session id (2025-era sessions only). */
  readonly sessionId: string | undefined;
  /** The MCP request's URL, when it came over HTTP. */
  readonly url: URL | undefined;
  /** One header of the MCP request, when it came over HTTP. */
  header(name: string): string | undefined;
}

function parsedUrl(text: string | undefined): URL | undefined {
  if (text === undefined) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Reads a tool handler's second argument from either MCP SDK (see {@link ToolCall}).
 *
 * @param call - `extra` (SDK v1) or `ctx` (SDK v2); `undefined` reads as a call with nothing
 */
export function readToolCall(call: ToolCall | undefined): ToolCallView {
  const modern = call?.mcpReq;
  const request = call?.http?.req;
  const legacyHeaders = call?.requestInfo?.headers;
  const send = (modern?.notify ?? call?.sendNotification) as
    | ((notification: OutgoingNotification) => Promise<void>)
    | undefined;
  const auth = call?.http?.authInfo ?? call?.authInfo;
  const clientId = auth?.clientId;
  return {
    signal: modern?.signal ?? call?.signal,
    meta: (modern?._meta ?? call?._meta) as Readonly<Record<string, unknown>> | undefined,
    notify: send,
    clientId: typeof clientId === 'string' && clientId !== '' ? clientId : undefined,
    token: typeof auth?.token === 'string' && auth.token !== '' ? auth.token : undefined,
    sessionId: call?.sessionId,
    url: request ? parsedUrl(request.url) : call?.requestInfo?.url,
    header(name) {
      if (request) return request.headers.get(name) ?? undefined;
      const value = legacyHeaders?.[name.toLowerCase()];
      return Array.isArray(value) ? value[0] : value;
    },
  };
}
