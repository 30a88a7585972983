/**
 * The text of each element of a JSON array, found by one linear scan (strings skipped, brackets
 * counted) without building anything: the proxy hands these slices of the upstream's text to the
 * store (`attachRowJson`), which then stores a large table without stringifying it again.
 *
 * @module
 */

const WS = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** Index just after the string starting at `at` (`text[at] === '"'`), or -1. */
function afterString(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

/**
 * The texts of the objects of the array that `text` is (after white space), or `undefined` when
 * `text` is not such an array (then nothing is reused and nothing is lost).
 */
export function arrayElementTexts(text: string): string[] | undefined {
  const n = text.length;
  let i = 0;
  while (i < n && WS(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 91 /* [ */) return undefined;
  i++;
  const out: string[] = [];
  for (;;) {
    while (i < n && WS(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 93 /* ] */ && out.length === 0) return out;
    if (text.charCodeAt(i) !== 123 /* { */) return undefined;
    const start = i;
    let depth = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i = afterString(text, i);
        if (i < 0) return undefined;
        continue;
      }
      if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      }
      i++;
    }
    if (depth !== 0) return undefined;
    out.push(text.slice(start, i));
    while (i < n && WS(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i);
    i++;
    if (c === 93) return out;
    if (c !== 44 /* , */) return undefined;
  }
}
