/**
 * The byte cap on one upstream answer. An answer over it fails only the request it answers: the
 * proxy drops its bytes as they arrive (holding at most the cap) and hands the SDK client a
 * JSON-RPC error for that request id in its place, so the connection, and every other caller,
 * carries on — no restart, no unbounded buffer.
 *
 * - HTTP: {@link cappedFetch} is the transport's `fetch`. A JSON body is held until complete (as
 *   the SDK would hold it to parse it); an SSE stream is passed on event by event, each held until
 *   its blank line.
 * - stdio: {@link BoundedLineBuffer} replaces the SDK's read buffer, whose overflow closes the
 *   transport (and so restarts the upstream for everyone).
 *
 * @module
 */

import { constants } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '../mcp-sdk.js';
import { deserializeMessage } from '../mcp-sdk.js';
import {
  type LineWithStrings,
  restoreLargeStrings,
  takeLargeStrings,
  textAsBytes,
} from './large-strings.js';

type RequestId = string | number;

// Marks the errors this module makes, so that an upstream cannot fake one (it cannot know it).
const MARK = randomUUID();
// JSON-RPC "server error" range; the proxy reads the mark, never the code.
const OVERSIZED_CODE = -32_001;

/** The JSON-RPC error that stands in for an answer over the cap. */
export function oversizedAnswer(id: RequestId, limit: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: OVERSIZED_CODE,
      message: `The upstream answer is larger than ${limit} bytes.`,
      data: { s2spOversized: MARK, limit },
    },
  } as JSONRPCMessage;
}

/**
 * The cap an error says was exceeded, when it stands in for an answer over it (an `McpError`'s
 * `data`), else `undefined`.
 */
export function oversizedLimit(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { s2spOversized, limit } = data as { s2spOversized?: unknown; limit?: unknown };
  return s2spOversized === MARK && typeof limit === 'number' ? limit : undefined;
}

/** The id of the JSON-RPC request a fetch sends, if it sends one request. */
function requestIdOf(body: unknown): RequestId | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    const { id } = message;
    return typeof message.method === 'string' && (typeof id === 'string' || typeof id === 'number')
      ? id
      : undefined;
  } catch {
    return undefined;
  }
}

const encoder = new TextEncoder();

/** Holds a JSON body whole; over the cap, answers with the stand-in error instead. */
function jsonCap(
  limit: number,
  id: RequestId | undefined,
): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = [];
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size <= limit) {
        held.push(chunk);
        return;
      }
      held = [];
      if (id === undefined) {
        controller.error(new Error(`The upstream answer is larger than ${limit} bytes.`));
        return;
      }
      controller.enqueue(encoder.encode(JSON.stringify(oversizedAnswer(id, limit))));
      // Stops reading: the rest of the body is cancelled, not buffered.
      controller.terminate();
    },
    flush(controller) {
      for (const chunk of held) controller.enqueue(chunk);
    },
  });
}

/** Passes an SSE stream on event by event; an event over the cap becomes the stand-in error. */
function sseCap(limit: number, id: RequestId | undefined): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = [];
  let size = 0;
  let dropping = false;
  let lineLength = 0;
  let lineFirstByte = -1;
  const take = (
    part: Uint8Array,
    complete: boolean,
    controller: TransformStreamDefaultController<Uint8Array>,
  ) => {
    if (!dropping && part.byteLength > 0) {
      held.push(part);
      size += part.byteLength;
      if (size > limit) {
        held = [];
        dropping = true;
        if (id === undefined) {
          controller.error(new Error(`An upstream event is larger than ${limit} bytes.`));
          return;
        }
        const data = JSON.stringify(oversizedAnswer(id, limit));
        controller.enqueue(encoder.encode(`event: message\ndata: ${data}\n\n`));
      }
    }
    if (!complete) return;
    if (!dropping) for (const piece of held) controller.enqueue(piece);
    held = [];
    size = 0;
    dropping = false;
  };
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      let at = 0;
      while (at < chunk.byteLength) {
        const newline = chunk.indexOf(10, at);
        const end = newline === -1 ? chunk.byteLength : newline;
        if (end > at) {
          if (lineLength === 0) lineFirstByte = chunk[at] ?? -1;
          lineLength += end - at;
        }
        if (newline === -1) break;
        // A blank line (or a lone CR before the LF) ends the event.
        const blank = lineLength === 0 || (lineLength === 1 && lineFirstByte === 13);
        lineLength = 0;
        at = newline + 1;
        if (blank) {
          take(chunk.subarray(start, at), true, controller);
          start = at;
        }
      }
      if (start < chunk.byteLength) take(chunk.subarray(start), false, controller);
    },
    flush(controller) {
      if (!dropping) for (const piece of held) controller.enqueue(piece);
    },
  });
}

/**
 * A `fetch` for the Streamable HTTP client transport that counts the bytes of every answer: a
 * JSON body or an SSE event over `limit` becomes a JSON-RPC error for the request it answers
 * (see {@link oversizedLimit}); nothing over the cap is held.
 *
 * @param limit - the most bytes one answer may have
 * @param base - the fetch to wrap
 */
export function cappedFetch(limit: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const type = response.headers.get('content-type') ?? '';
    const id = requestIdOf(init?.body);
    let cap: TransformStream<Uint8Array, Uint8Array>;
    if (type.includes('text/event-stream')) cap = sseCap(limit, id);
    else if (type.includes('application/json')) cap = jsonCap(limit, id);
    else return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(response.body.pipeThrough(cap), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

const KEEP = 256;
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
// The id as the first member after "jsonrpc", or as the last member of the message.
const ID_AT_START = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`,
);
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * The id of a JSON-RPC message from its first and last bytes. Quotes inside JSON strings are
 * escaped, so `"id":` here is a member name; at the very end it is the message's own.
 */
export function idFromEnds(head: string, tail: string): RequestId | undefined {
  const raw = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as RequestId;
  } catch {
    return undefined;
  }
}

/**
 * The longest line read, whatever the configured cap: a longer one could not become a string
 * (and so a message) anyway.
 */
const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;

/** A resizable `ArrayBuffer` (ES2024, in Node 20; not in the TypeScript lib this builds with). */
interface ResizableBuffer extends ArrayBuffer {
  resize(byteLength: number): void;
}
const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableBuffer;

/** Bytes the line buffer grows by. */
const GROW_BYTES = 256 * 1024;

/** Bytes of line buffer kept between lines; a larger one is given back to the system. */
const KEPT_LINE_BYTES = 1024 * 1024;

/**
 * The stdio transport's read buffer with a cap per line (one message per line): a longer line is
 * dropped as it arrives, keeping only its first and last bytes to find its id, and read back as
 * the stand-in error for that id. Same methods as the SDK's `ReadBuffer`.
 */
export class BoundedLineBuffer {
  readonly #limit: number;
  readonly #onDropped: (id: RequestId | undefined) => void;
  // A line's bytes, in one buffer that grows in place (a resizable ArrayBuffer reserves the
  // address space and takes pages as they are written): no chunk, no decoded piece and no
  // outgrown copy is left for the garbage collector, which for a large answer kept as much again
  // as the line until the next full collection. Shrunk after a large line, at once.
  // Replaced when a line's large strings take its bytes with them.
  #buffer: ResizableBuffer;
  #size = 0;
  // Requests sent under textAsBytes, until answered or cancelled.
  readonly #asBytes = new Set<RequestId>();
  #dropping = false;
  #head = '';
  #tail = Buffer.alloc(0);
  #ready: (string | LineWithStrings | JSONRPCMessage)[] = [];

  /**
   * @param limit - the most bytes one line may have
   * @param onDropped - told of each dropped line (its id, when found)
   */
  constructor(limit: number, onDropped: (id: RequestId | undefined) => void) {
    this.#limit = Math.min(limit, MAX_LINE_BYTES);
    this.#onDropped = onDropped;
    this.#buffer = new ResizableArrayBuffer(0, { maxByteLength: this.#limit });
  }

  /** Adds bytes read from the child's standard output. Never throws. */
  append(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      const newline = chunk.indexOf(10, at);
      const end = newline === -1 ? chunk.length : newline;
      this.#add(chunk.subarray(at, end));
      if (newline === -1) return;
      this.#endLine();
      at = newline + 1;
    }
  }

  #add(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#dropping) {
      this.#tail = Buffer.concat([this.#tail, part]).subarray(-KEEP);
      return;
    }
    const size = this.#size + part.length;
    if (size <= this.#limit) {
      const buffer = this.#buffer;
      // In steps, not doubling: shrinking zeroes (so touches) the bytes past the new end.
      if (size > buffer.byteLength)
        buffer.resize(Math.min(this.#limit, Math.ceil(size / GROW_BYTES) * GROW_BYTES));
      new Uint8Array(buffer, this.#size, part.length).set(part);
      this.#size = size;
      return;
    }
    const held = Buffer.from(this.#buffer, 0, this.#size);
    this.#head = Buffer.concat([held.subarray(0, KEEP), part.subarray(0, KEEP)]).toString(
      'utf8',
      0,
      KEEP,
    );
    this.#tail = Buffer.concat([held.subarray(-KEEP), part]).subarray(-KEEP);
    this.#reset();
    this.#dropping = true;
  }

  /** Forgets the line's bytes, giving a large buffer's pages back. */
  #reset(): void {
    this.#size = 0;
    if (this.#buffer.byteLength > KEPT_LINE_BYTES) this.#buffer.resize(0);
  }

  #endLine(): void {
    if (this.#dropping) {
      const id = idFromEnds(this.#head, this.#tail.toString('utf8'));
      this.#onDropped(id);
      if (id !== undefined) this.#ready.push(oversizedAnswer(id, this.#limit));
      this.#dropping = false;
      this.#head = '';
      this.#tail = Buffer.alloc(0);
      return;
    }
    let size = this.#size;
    const bytes = new Uint8Array(this.#buffer, 0, size);
    if (bytes[size - 1] === 13) size--;
    const line = bytes.subarray(0, size);
    const taken = takeLargeStrings(line);
    if (!taken) {
      this.#ready.push(Buffer.from(line.buffer, 0, size).toString('utf8'));
      this.#reset();
      return;
    }
    // The values are views of these bytes: the next line gets a buffer of its own.
    this.#ready.push(taken);
    this.#size = 0;
    this.#buffer = new ResizableArrayBuffer(0, { maxByteLength: this.#limit });
  }

  /**
   * Told of each message the transport sends: a request sent under {@link textAsBytes} gets its
   * answer's first large text block as bytes; a cancelled one no longer does (nobody would take
   * them).
   */
  noteSent(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if ('id' in message) {
      if (textAsBytes.getStore() === true) this.#asBytes.add(message.id);
      return;
    }
    if (message.method === 'notifications/cancelled')
      this.#asBytes.delete(
        (message.params as { requestId?: RequestId } | undefined)?.requestId ?? '',
      );
  }

  /**
   * The next message, or `null` when no complete line is waiting.
   * @throws Error for a line that is not a JSON-RPC message (the SDK reports it, and reads on)
   */
  readMessage(): JSONRPCMessage | null {
    const next = this.#ready.shift();
    if (next === undefined) return null;
    const taken = typeof next === 'object' && 'values' in next ? next : undefined;
    const message =
      typeof next === 'string'
        ? deserializeMessage(next)
        : taken
          ? deserializeMessage(taken.line)
          : (next as JSONRPCMessage);
    // Every answer ends its request's wish for bytes, whatever it holds.
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const asBytes = id !== undefined && this.#asBytes.delete(id) && 'result' in message;
    if (taken && !restoreLargeStrings(message, taken, asBytes)) {
      // Nothing kept the line's bytes: its pages go back to the system now.
      (taken.values[0]?.buffer as ResizableBuffer | undefined)?.resize(0);
    }
    return message;
  }

  /** Forgets everything buffered. */
  clear(): void {
    this.#reset();
    this.#asBytes.clear();
    this.#dropping = false;
    this.#ready = [];
  }
}
