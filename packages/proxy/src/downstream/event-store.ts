/**
 * Event ids on a 2025-era session's SSE streams, so that a client whose stream breaks resumes it
 * (`GET` with `Last-Event-ID`) and gets what it missed: the SDK's `EventStore`, in memory, one per
 * session (an event id is only ever looked up in the session that issued it).
 *
 * Bounded: each stream keeps its newest {@link EVENT_STORE_LIMITS}.eventsPerStream events and
 * bytesPerStream bytes (of their JSON), a session all its streams' newest bytesPerSession bytes,
 * and nothing older than ttlMs. A resume from an event whose successors were dropped cannot be
 * served whole, so it is refused (the SDK answers 500) rather than replayed with a gap: the client
 * then calls again.
 *
 * @module
 */
import type { JSONRPCMessage } from '../mcp-sdk.js';

/** The SDK's `EventStore` (SDK v1, `WebStandardStreamableHTTPServerTransport`). */
export interface SessionEventStore {
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  replayEventsAfter(
    lastEventId: string,
    io: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string>;
}

/** The bounds of one session's store. */
export interface EventStoreLimits {
  readonly eventsPerStream: number;
  /** Bytes (UTF-16 code units of each event's JSON) one stream keeps. */
  readonly bytesPerStream: number;
  /** Bytes all the streams of one session keep; the streams written least recently go first. */
  readonly bytesPerSession: number;
  /** How long an event is kept, in ms. */
  readonly ttlMs: number;
}

/** The proxy's bounds: at most 2 MiB per session, for two minutes (100 sessions: 200 MiB). */
export const EVENT_STORE_LIMITS: EventStoreLimits = {
  eventsPerStream: 1_000,
  bytesPerStream: 1024 * 1024,
  bytesPerSession: 2 * 1024 * 1024,
  ttlMs: 120_000,
};

interface StoredEvent {
  readonly seq: number;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
  readonly at: number;
}

interface Stream {
  readonly events: StoredEvent[];
  /** The next event's sequence number. */
  next: number;
  /** Events before this sequence number were dropped (or never kept). */
  keptFrom: number;
  bytes: number;
  lastAt: number;
}

// `<streamId>_<seq>`: stream ids are the SDK's (a UUID, or `_GET_stream`).
const EVENT_ID = /^(.+)_(\d{1,15})$/;

/**
 * Creates the event store of one session.
 *
 * @param limits - the bounds (default {@link EVENT_STORE_LIMITS})
 * @param now - the clock, in ms
 */
export function createSessionEventStore(
  limits: EventStoreLimits = EVENT_STORE_LIMITS,
  now: () => number = Date.now,
): SessionEventStore {
  const streams = new Map<string, Stream>();
  let total = 0;

  const dropOldest = (stream: Stream) => {
    const dropped = stream.events.shift();
    if (!dropped) return;
    stream.bytes -= dropped.bytes;
    total -= dropped.bytes;
    stream.keptFrom = dropped.seq + 1;
  };

  const sweep = () => {
    const oldest = now() - limits.ttlMs;
    for (const stream of streams.values())
      while ((stream.events[0]?.at ?? Number.POSITIVE_INFINITY) < oldest) dropOldest(stream);
    // Over the session's bytes: the streams written least recently give up their events first
    // (a Map iterates in insertion order; a stream written to is moved to the end).
    for (const [id, stream] of streams) {
      if (total <= limits.bytesPerSession) break;
      while (stream.events.length > 0 && total > limits.bytesPerSession) dropOldest(stream);
      if (stream.events.length === 0 && stream.lastAt < oldest) streams.delete(id);
    }
    for (const [id, stream] of streams)
      if (stream.events.length === 0 && stream.lastAt < oldest) streams.delete(id);
  };

  const parse = (eventId: string) => {
    const match = EVENT_ID.exec(eventId);
    if (!match) return undefined;
    const stream = streams.get(match[1] ?? '');
    return stream ? { streamId: match[1] ?? '', stream, seq: Number(match[2]) } : undefined;
  };

  return {
    async storeEvent(streamId, message) {
      let stream = streams.get(streamId);
      if (stream) streams.delete(streamId);
      stream ??= { events: [], next: 0, keptFrom: 0, bytes: 0, lastAt: 0 };
      streams.set(streamId, stream);
      const seq = stream.next++;
      stream.lastAt = now();
      const bytes = JSON.stringify(message).length;
      if (bytes > limits.bytesPerStream) {
        // Too large to keep: a resume from before it could not be served whole.
        while (stream.events.length > 0) dropOldest(stream);
        stream.keptFrom = seq + 1;
      } else {
        stream.events.push({ seq, message, bytes, at: stream.lastAt });
        stream.bytes += bytes;
        total += bytes;
        while (
          stream.events.length > limits.eventsPerStream ||
          stream.bytes > limits.bytesPerStream
        )
          dropOldest(stream);
      }
      sweep();
      return `${streamId}_${seq}`;
    },

    async getStreamIdForEventId(eventId) {
      return parse(eventId)?.streamId;
    },

    async replayEventsAfter(lastEventId, { send }) {
      sweep();
      const found = parse(lastEventId);
      if (!found) throw new Error('Unknown event id: it expired, or the stream is gone.');
      const { streamId, stream, seq } = found;
      if (seq >= stream.next) throw new Error('Unknown event id: the stream never sent it.');
      if (seq + 1 < stream.keptFrom) {
        throw new Error(
          'The events after this id were dropped (the proxy keeps a few per stream, briefly): call again.',
        );
      }
      for (const event of stream.events)
        if (event.seq > seq) await send(`${streamId}_${event.seq}`, event.message);
      return streamId;
    },
  };
}
