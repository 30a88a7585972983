/**
 * Event ids on a 2025-era session's SSE streams, so that a client whose stream breaks resumes it
 * (`GET` with `Last-Event-ID`) and gets what it missed: the SDK's `EventStore`, in memory, one per
 * session (an event id is only ever looked up in the session that issued it).
 *
 * Bounded by what it holds in memory, not by the length of its JSON: an event is kept as its JSON
 * text (the message object it came as is not kept: its object graph costs several times its text)
 * and charged that text's bytes in the heap plus a fixed cost for its record
 * ({@link EVENT_OVERHEAD_BYTES}); a stream is charged its record and its id
 * ({@link STREAM_OVERHEAD_BYTES}) while it is known. Each stream keeps its newest
 * {@link EVENT_STORE_LIMITS}.eventsPerStream events and bytesPerStream bytes, a session all its
 * streams' newest bytesPerSession bytes (the streams written least recently give way first, and
 * are forgotten once empty), and nothing older than ttlMs — dropped by a timer too, so an idle
 * session's events go when their time is up, not at its next event. A resume from an event whose
 * successors were dropped cannot be served whole, so it is refused (the SDK answers 500) rather
 * than replayed with a gap: the client then calls again.
 *
 * @module
 */
import type { JSONRPCMessage } from '../mcp-sdk.js';

/** The SDK's `EventStore` (SDK v1, `WebStandardStreamableHTTPServerTransport`), and its upkeep. */
export interface SessionEventStore {
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  replayEventsAfter(
    lastEventId: string,
    io: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string>;
  /** What it holds now: streams, events, and the bytes they are charged. */
  stats(): EventStoreStats;
  /** Forgets everything and stops its timer: the session has ended. */
  close(): void;
}

/** What a {@link SessionEventStore} holds. */
export interface EventStoreStats {
  readonly streams: number;
  readonly events: number;
  /** Bytes charged: the events' JSON text in the heap, their records and the streams'. */
  readonly bytes: number;
}

/** The bounds of one session's store. */
export interface EventStoreLimits {
  readonly eventsPerStream: number;
  /** Bytes one stream's events are charged at most (see {@link eventBytes}). */
  readonly bytesPerStream: number;
  /**
   * Bytes all the streams of one session are charged at most, their records included; the
   * streams written least recently go first.
   */
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

/**
 * The heap an event costs besides its JSON text's characters: its record (four fields), its
 * slot in its stream's array and the string's header. Measured on Node 20 (x64) at about 105
 * bytes; charged with room to spare (event-store.test.ts measures a store at its cap).
 */
export const EVENT_OVERHEAD_BYTES = 128;

/**
 * The heap a stream costs besides its events: its record, its empty events array, its id (an SDK
 * UUID, charged two bytes a character on top), the backing store its array allocates for its first
 * event, and its entry in the store's map. Measured on Node 20 (x64) at about 775 bytes with its
 * 36-character id; charged 840 for it.
 */
export const STREAM_OVERHEAD_BYTES = 768;

// A string with a character beyond Latin-1 is stored two bytes a character.
const TWO_BYTE = /[\u0100-\uffff]/;

/** What an event of JSON text `json` is charged: the text in the heap and its record. */
export function eventBytes(json: string): number {
  return (TWO_BYTE.test(json) ? 2 : 1) * json.length + EVENT_OVERHEAD_BYTES;
}

interface StoredEvent {
  readonly seq: number;
  readonly json: string;
  readonly bytes: number;
  readonly at: number;
}

interface Stream {
  readonly events: StoredEvent[];
  /** What the stream itself is charged. */
  readonly ownBytes: number;
  /**
   * A resume from before this sequence number may miss events: they were dropped, or came
   * before the store (re)started keeping this stream.
   */
  keptFrom: number;
  /** The events' bytes. */
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
  now: () => number = () => Date.now(),
): SessionEventStore {
  const streams = new Map<string, Stream>();
  // One sequence for the whole session, so an event id is never issued twice, even for a stream
  // that was forgotten and is written again.
  let next = 0;
  let total = 0;
  let events = 0;
  let timer: ReturnType<typeof setInterval> | undefined;

  const dropOldest = (stream: Stream) => {
    const dropped = stream.events.shift();
    if (!dropped) return;
    stream.bytes -= dropped.bytes;
    total -= dropped.bytes;
    events--;
    stream.keptFrom = dropped.seq + 1;
  };

  const forget = (id: string, stream: Stream) => {
    while (stream.events.length > 0) dropOldest(stream);
    streams.delete(id);
    total -= stream.ownBytes;
  };

  const dropExpired = (stream: Stream, oldest: number) => {
    while ((stream.events[0]?.at ?? Number.POSITIVE_INFINITY) < oldest) dropOldest(stream);
  };

  /** Every stream's expired events; streams idle past the limit are forgotten. */
  const expire = () => {
    const oldest = now() - limits.ttlMs;
    for (const [id, stream] of streams) {
      dropExpired(stream, oldest);
      if (stream.events.length === 0 && stream.lastAt < oldest) forget(id, stream);
    }
    if (streams.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  // Expiry on a timer, while there is anything to expire: an idle session's events go when their
  // time is up. Unref'd, so it never keeps the process alive.
  const sweepEveryMs = Math.max(1, Math.ceil(limits.ttlMs / 12));
  const arm = () => {
    if (timer !== undefined) return;
    timer = setInterval(expire, sweepEveryMs);
    timer.unref?.();
  };

  /** Over the session's bytes: the streams written least recently give way (not `current`). */
  const fitSession = (current: Stream) => {
    // A Map iterates in insertion order; a stream written to is moved to the end.
    for (const [id, stream] of streams) {
      if (stream === current) break;
      while (total > limits.bytesPerSession && stream.events.length > 0) dropOldest(stream);
      if (total <= limits.bytesPerSession) return;
      // Empty and still over: the stream's own record goes too (a resume on it is refused).
      forget(id, stream);
    }
    while (total > limits.bytesPerSession && current.events.length > 0) dropOldest(current);
  };

  const parse = (eventId: string) => {
    const match = EVENT_ID.exec(eventId);
    if (!match) return undefined;
    const stream = streams.get(match[1] ?? '');
    return stream ? { streamId: match[1] ?? '', stream, seq: Number(match[2]) } : undefined;
  };

  return {
    async storeEvent(streamId, message) {
      const seq = next++;
      const at = now();
      let stream = streams.get(streamId);
      if (stream) streams.delete(streamId);
      else {
        const ownBytes = STREAM_OVERHEAD_BYTES + 2 * streamId.length;
        stream = { events: [], ownBytes, keptFrom: seq, bytes: 0, lastAt: at };
        total += ownBytes;
      }
      streams.set(streamId, stream);
      stream.lastAt = at;
      const json = JSON.stringify(message);
      const bytes = eventBytes(json);
      if (bytes > limits.bytesPerStream) {
        // Too large to keep: a resume from before it could not be served whole.
        while (stream.events.length > 0) dropOldest(stream);
        stream.keptFrom = seq + 1;
      } else {
        stream.events.push({ seq, json, bytes, at });
        stream.bytes += bytes;
        total += bytes;
        events++;
        while (
          stream.events.length > limits.eventsPerStream ||
          stream.bytes > limits.bytesPerStream
        )
          dropOldest(stream);
      }
      // Streams idle past the limit, from the front (the least recently written); the timer
      // takes every other expired event.
      const oldest = at - limits.ttlMs;
      for (const [id, idle] of streams) {
        if (idle.lastAt >= oldest) break;
        forget(id, idle);
      }
      dropExpired(stream, oldest);
      fitSession(stream);
      arm();
      return `${streamId}_${seq}`;
    },

    async getStreamIdForEventId(eventId) {
      return parse(eventId)?.streamId;
    },

    async replayEventsAfter(lastEventId, { send }) {
      expire();
      const found = parse(lastEventId);
      if (!found) throw new Error('Unknown event id: it expired, or the stream is gone.');
      const { streamId, stream, seq } = found;
      if (seq >= next) throw new Error('Unknown event id: the stream never sent it.');
      if (seq + 1 < stream.keptFrom) {
        throw new Error(
          'The events after this id were dropped (the proxy keeps a few per stream, briefly): call again.',
        );
      }
      for (const event of stream.events)
        if (event.seq > seq)
          await send(`${streamId}_${event.seq}`, JSON.parse(event.json) as JSONRPCMessage);
      return streamId;
    },

    stats: () => ({ streams: streams.size, events, bytes: total }),

    close() {
      for (const [id, stream] of streams) forget(id, stream);
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
