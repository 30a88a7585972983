/**
 * Large string values of a JSON-RPC line, read straight from its bytes. A tool result holding a
 * large table in a text block is one long JSON string inside the line: parsing the decoded line
 * keeps the line and the text at once, and the line stays as garbage beside the rows until the
 * next full collection. Instead, each string value of at least {@link LARGE_STRING_BYTES} is
 * unescaped in place in the line's bytes and decoded once, and the rest of the line (small) is
 * parsed as usual with a placeholder in its place, put back afterwards: a large table then costs one copy of its text, not three.
 *
 * A response the proxy asked for with {@link textAsBytes} keeps its first large text block as
 * bytes instead ({@link LargeText}): the proxy splits and stores a table from them without ever
 * holding the table as a string.
 *
 * Only valid string literals are taken out: one with a raw control character, a bad escape, a
 * lone surrogate or bytes that are not UTF-8 stays in the line, so the message reads exactly as
 * parsing the whole line would read it (and fails where that fails).
 *
 * @module
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';

/** Bytes from which a string value is taken out of the line. */
export const LARGE_STRING_BYTES = 1024 * 1024;

// Placeholders carry a random mark: an upstream cannot write one that is put back.
const PLACEHOLDER = `s2sp-large-string:${randomUUID()}:`;

/** A line with its large string values taken out. */
export interface LineWithStrings {
  /** The line, each large string value replaced by a placeholder string. */
  readonly line: string;
  /**
   * The values' UTF-8, in order: views of the line's bytes (unescaped in place), which the line
   * gives up to them.
   */
  readonly values: readonly Uint8Array[];
}

/**
 * Set (to `true`) around the sending of a request whose answer's first large text block the
 * caller takes as bytes: its `text` is then a {@link LargeText}, not a string.
 */
export const textAsBytes = new AsyncLocalStorage<boolean>();

/**
 * A text block's large text kept as its UTF-8 bytes. It owns the buffer of the line it came in:
 * nothing else reads or reuses it, so its reader may hand it over (to the store). Serialised, it
 * is its text, so it can never go out as anything else.
 */
export class LargeText {
  /** @param bytes - the text's UTF-8, a view of a buffer it owns */
  constructor(readonly bytes: Uint8Array) {}

  /** The text as a string (a copy of the bytes, decoded). */
  decode(): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length).toString(
      'utf8',
    );
  }

  /**
   * Gives the pages of its line's buffer back to the system at once, when that buffer is resizable
   * (the stdio line buffer's is): for a text decoded and never read as bytes again. Left to the
   * garbage collector, a 20 MB line stayed resident until the next full collection, which may not
   * come before the table is split and stored. Its bytes read as empty afterwards.
   */
  release(): void {
    const buffer = this.bytes.buffer as ArrayBuffer & {
      readonly resizable?: boolean;
      resize?(byteLength: number): void;
    };
    if (buffer.resizable) buffer.resize?.(0);
  }

  /** The text: what `JSON.stringify` writes for it. */
  toJSON(): string {
    return this.decode();
  }
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

function hex4(b: Uint8Array, at: number): number {
  let value = 0;
  for (let k = at; k < at + 4; k++) {
    const c = b[k] as number;
    if (!isHex(c)) return -1;
    value = value * 16 + (c <= 57 ? c - 48 : (c | 32) - 87);
  }
  return value;
}

// The one-letter escapes: \" \\ \/ \b \f \n \r \t, by letter, to the byte they stand for.
const SIMPLE: Record<number, number> = {
  34: 34,
  92: 92,
  47: 47,
  98: 8,
  102: 12,
  110: 10,
  114: 13,
  116: 9,
};

/** Whether the string literal content `b[from, to)` is valid JSON without lone surrogates. */
function validContent(b: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = b[k] as number;
    if (c < 32) return false;
    if (c !== 92) continue;
    const x = b[k + 1];
    if (x === 117 /* u */) {
      const unit = k + 6 <= to ? hex4(b, k + 2) : -1;
      if (unit < 0 || (unit >= 0xdc00 && unit <= 0xdfff)) return false;
      if (unit >= 0xd800 && unit <= 0xdbff) {
        if (b[k + 6] !== 92 || b[k + 7] !== 117 || k + 12 > to) return false;
        const low = hex4(b, k + 8);
        if (low < 0xdc00 || low > 0xdfff) return false;
        k += 11;
      } else k += 5;
      continue;
    }
    if (k + 1 >= to || x === undefined || SIMPLE[x] === undefined) return false;
    k++;
  }
  return true;
}

/** Writes code point `cp` as UTF-8 at `w`; returns the next write position. */
function writeUtf8(b: Uint8Array, w: number, cp: number): number {
  if (cp < 0x80) b[w++] = cp;
  else if (cp < 0x800) {
    b[w++] = 0xc0 | (cp >> 6);
    b[w++] = 0x80 | (cp & 63);
  } else if (cp < 0x10000) {
    b[w++] = 0xe0 | (cp >> 12);
    b[w++] = 0x80 | ((cp >> 6) & 63);
    b[w++] = 0x80 | (cp & 63);
  } else {
    b[w++] = 0xf0 | (cp >> 18);
    b[w++] = 0x80 | ((cp >> 12) & 63);
    b[w++] = 0x80 | ((cp >> 6) & 63);
    b[w++] = 0x80 | (cp & 63);
  }
  return w;
}

/**
 * Unescapes the (valid) literal content `b[from, to)` in place: the result is never longer.
 * Returns where the result ends. The text before the first escape stays where it is (found
 * natively); after it, bytes are moved one by one: a table's JSON has an escape every few bytes
 * (`\"`), and a native search and move per escape cost ten times a loop over the bytes.
 */
function unescapeInPlace(b: Uint8Array, from: number, to: number): number {
  let r = b.indexOf(92, from);
  if (r < 0 || r >= to) return to;
  let w = r;
  while (r < to) {
    const c = b[r] as number;
    if (c !== 92) {
      b[w++] = c;
      r++;
      continue;
    }
    const x = b[r + 1] as number;
    if (x !== 117) {
      b[w++] = SIMPLE[x] as number;
      r += 2;
      continue;
    }
    let cp = hex4(b, r + 2);
    r += 6;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(b, r + 2) - 0xdc00);
      r += 6;
    }
    w = writeUtf8(b, w, cp);
  }
  return w;
}

/** Index of the quote closing the string literal opened at `open`, or -1. */
function closingQuote(b: Uint8Array, open: number): number {
  let at = open + 1;
  for (;;) {
    const q = b.indexOf(34, at);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let k = q - 1; b[k] === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    at = q + 1;
  }
}

const WS = (c: number | undefined) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * Takes the large string values out of a line's bytes (which it changes: the values' bytes are
 * unescaped in place). `undefined` when the line has none (then its bytes are unchanged).
 *
 * @param b - the line, UTF-8
 */
export function takeLargeStrings(b: Uint8Array): LineWithStrings | undefined {
  if (b.length < LARGE_STRING_BYTES) return undefined;
  const decode = (from: number, to: number) =>
    Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('utf8');
  const parts: string[] = [];
  const values: Uint8Array[] = [];
  let copied = 0;
  let at = 0;
  for (;;) {
    const open = b.indexOf(34, at);
    if (open < 0) break;
    const close = closingQuote(b, open);
    if (close < 0) break;
    at = close + 1;
    if (close - open - 1 < LARGE_STRING_BYTES) continue;
    let next = at;
    while (WS(b[next])) next++;
    // A member name stays: only values are taken out.
    if (b[next] === 58 /* : */) continue;
    const content = b.subarray(open + 1, close);
    if (!isUtf8(content) || !validContent(b, open + 1, close)) continue;
    const end = unescapeInPlace(b, open + 1, close);
    parts.push(decode(copied, open), JSON.stringify(PLACEHOLDER + values.length));
    values.push(b.subarray(open + 1, end));
    copied = close + 1;
  }
  if (values.length === 0) return undefined;
  parts.push(decode(copied, b.length));
  return { line: parts.join(''), values };
}

/**
 * Decodes every text block of `result` kept as bytes ({@link LargeText}) back into its string:
 * for a result that goes on as it came.
 */
export function decodeLargeTexts(result: { content?: unknown }): void {
  if (!Array.isArray(result.content)) return;
  for (const block of result.content) {
    if (typeof block === 'object' && block !== null && block.text instanceof LargeText)
      block.text = block.text.decode();
  }
}

/** Index of the value a placeholder stands for, or -1. */
function placeholderIndex(value: unknown): number {
  if (typeof value !== 'string' || !value.startsWith(PLACEHOLDER)) return -1;
  return Number(value.slice(PLACEHOLDER.length));
}

/**
 * Puts the values {@link takeLargeStrings} took out back into the message parsed from its line:
 * as strings, except, with `asBytes`, the first that is the `text` of one of a result's content
 * blocks, which stays bytes ({@link LargeText}, holding the line's buffer).
 *
 * @returns whether a value stayed bytes (else the line's buffer is free once this returns)
 */
export function restoreLargeStrings(
  message: unknown,
  taken: LineWithStrings,
  asBytes: boolean,
): boolean {
  const strings: (string | undefined)[] = [];
  let kept = -1;
  const content = asBytes
    ? (message as { result?: { content?: unknown } }).result?.content
    : undefined;
  if (Array.isArray(content)) {
    for (const block of content) {
      if (typeof block !== 'object' || block === null || block.type !== 'text') continue;
      const index = placeholderIndex(block.text);
      const bytes = taken.values[index];
      if (!bytes) continue;
      block.text = new LargeText(bytes);
      kept = index;
      break;
    }
  }
  // Every other value is decoded now, before the kept one's reader may change the buffer.
  taken.values.forEach((bytes, i) => {
    strings[i] =
      i === kept
        ? undefined
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  });
  putLargeStrings(message, strings as string[]);
  return kept >= 0;
}

/**
 * Puts the values {@link takeLargeStrings} took out back into the message parsed from its line.
 *
 * @returns the message, changed in place
 */
export function putLargeStrings<T>(message: T, strings: readonly string[]): T {
  const pending: unknown[] = [message];
  const restore = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!value.startsWith(PLACEHOLDER)) return value;
      return strings[Number(value.slice(PLACEHOLDER.length))] ?? value;
    }
    if (typeof value === 'object' && value !== null && !(value instanceof LargeText))
      pending.push(value);
    return value;
  };
  // Iterative: a deeply nested message must not overflow the stack.
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) item[i] = restore(item[i]);
      continue;
    }
    const object = item as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const value = object[key];
      const restored = restore(value);
      if (restored !== value) object[key] = restored;
    }
  }
  return message;
}
