/**
 * A JSON document with prose around it in one text block: before it ("Query executed
 * successfully. Rows: 3"), after it ("Total rows: 42\n\nFull results available at: …"), or both,
 * as `@pollinations/mcp-server-sqlite` 0.6.6 writes `execute_query_with_url`. The document is
 * read; the prose is the upstream's words beside the table (see `find-table.ts`).
 *
 * @module
 */

/** One text block cut around its JSON document. */
export interface ProseAround {
  /** Prose before the document, trimmed (`""`: none). */
  readonly before: string;
  /** The document's text, from its first `[` or `{` to the bracket that closes it. */
  readonly json: string;
  /** Prose after the document, trimmed (`""`: none). */
  readonly after: string;
}

/**
 * Where the JSON value opening at `start` (`[` or `{`) ends: just after the bracket that closes
 * it, strings skipped whole; `-1` when it does not close.
 */
function closingAt(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Past the string: a backslash escapes the character after it.
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) {
        if (text.charCodeAt(i) === 92 /* \ */) i++;
      }
    } else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * `text` cut into prose, a JSON document and prose: the document starts at the text's start or at
 * the first line that starts with `[` or `{`, and ends where its brackets close. One linear scan;
 * `undefined` when no such line opens a document that closes, or when there is no prose at all
 * (the text is the document, read as it is), or when another document follows it.
 *
 * @param text - a text block's text, trimmed
 */
export function proseAround(text: string): ProseAround | undefined {
  const start = /^[ \t]*[[{]/m.exec(text);
  if (!start) return undefined;
  const open = start.index + start[0].length - 1;
  const end = closingAt(text, open);
  if (end < 0) return undefined;
  const before = text.slice(0, open).trim();
  const after = text.slice(end).trim();
  // Nothing around it, or a second document after it: not a document among prose.
  if ((before === '' && after === '') || after.startsWith('[') || after.startsWith('{')) {
    return undefined;
  }
  return { before, json: text.slice(open, end), after };
}
