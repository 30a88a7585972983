/**
 * The resources a 2026-07-28 client's `subscriptions/listen` request asks to hear of
 * (`notifications.resourceSubscriptions`). SDK v2's entry serves the stream and sends the client
 * `notifications/resources/updated` for those URIs only, but it learns of an update only if the
 * upstream tells the proxy: so the proxy subscribes the client's upstream session to them while
 * the stream is open (see `subscriptions.ts`, where the stream is one holder among others).
 *
 * Each URI held costs an entry in the client's upstream listen filter (or a subscription on a
 * 2025 upstream), which every change of that filter resends: a stream may name at most
 * {@link MAX_LISTEN_RESOURCES}.
 *
 * @module
 */
import { listenToFewerResources } from '../advice.js';
import { ErrorCode, specTypeSchemas } from '../mcp-sdk.js';

/**
 * Most distinct resources one `subscriptions/listen` stream may name. A client needing more
 * opens another stream (each of its streams counts against `maxListenStreamsPerClient`).
 */
export const MAX_LISTEN_RESOURCES = 100;

/** What one `subscriptions/listen` request asks of the upstream. */
export interface ListenResources {
  /** The request's JSON-RPC id. */
  readonly id: string | number;
  /** The distinct URIs of its `resourceSubscriptions`, in their order. */
  readonly uris: string[];
}

/**
 * The resources a `subscriptions/listen` request names, read with the SDK's own schema;
 * `undefined` for any other message, a listen request naming none, or one the schema refuses
 * (the SDK's entry answers that one itself, `-32602`).
 *
 * @param body - a JSON-RPC message as the edge read it
 */
export function listenResources(body: unknown): ListenResources | undefined {
  const read = specTypeSchemas.SubscriptionsListenRequest['~standard'].validate(body);
  if (read instanceof Promise || read.issues) return undefined;
  const uris = [...new Set(read.value.params.notifications.resourceSubscriptions ?? [])];
  // The schema keeps no JSON-RPC envelope: the id comes from the message as sent.
  const id = (body as { id?: unknown }).id;
  if (uris.length === 0 || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return { id, uris };
}

/**
 * The answer to a listen request naming more than {@link MAX_LISTEN_RESOURCES} resources: its
 * JSON-RPC error in band (HTTP 200), as the SDK answers a listen request it refuses, so that the
 * client handles it as that request's error.
 *
 * @param listen - the request, as {@link listenResources} read it
 */
export function tooManyListenResources(listen: ListenResources): Response {
  return Response.json({
    jsonrpc: '2.0',
    id: listen.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `This subscriptions/listen request names ${listen.uris.length} resources in resourceSubscriptions; one stream may name at most ${MAX_LISTEN_RESOURCES}. ${listenToFewerResources}`,
      data: { limit: MAX_LISTEN_RESOURCES },
    },
  });
}
