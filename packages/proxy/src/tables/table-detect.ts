/**
 * Finding the table in an upstream tool result: a JSON array of objects in `structuredContent`,
 * or as the text of a single text block, or as the one array-of-objects member of such an object
 * (`{"rows": [...]}`), or wherever an explicit JSON Pointer says.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import type { CallToolResult } from '../mcp-sdk.js';
import { pointerTo, resolveJsonPointer } from './json-pointer.js';

/** A table found in a result. */
export interface FoundTable {
  readonly kind: 'table';
  readonly rows: readonly Row[];
  /** Where the rows were, as a JSON Pointer into the parsed document (`""`: the document). */
  readonly pointer: string;
}

/** Why a result is not a table, in words an LLM can act on. */
export interface NotATable {
  readonly kind: 'not-table';
  readonly reason: string;
}

/** Options for {@link findTable}. */
export interface FindTableOptions {
  /** Reference tokens of a configured pointer; without one, the shapes above are tried. */
  readonly pointer?: readonly string[];
  /** Largest text block parsed as JSON, in UTF-16 code units. */
  readonly maxTextLength: number;
}

function isTable(value: unknown): value is Row[] {
  return Array.isArray(value) && value.every(isPlainObject);
}

function fromDocument(
  document: unknown,
  pointer: readonly string[] | undefined,
): FoundTable | NotATable {
  if (pointer) {
    const value = resolveJsonPointer(document, pointer);
    if (isTable(value)) {
      return { kind: 'table', rows: value, pointer: pointer.map(pointerTo).join('') };
    }
    return {
      kind: 'not-table',
      reason: `the configured location /${pointer.join('/')} does not hold an array of objects`,
    };
  }
  if (isTable(document)) return { kind: 'table', rows: document, pointer: '' };
  if (isPlainObject(document)) {
    const members = Object.entries(document).filter(
      ([, value]) => isTable(value) && value.length > 0,
    );
    const [only] = members;
    if (members.length === 1 && only) {
      return { kind: 'table', rows: only[1] as Row[], pointer: pointerTo(only[0]) };
    }
    if (members.length > 1) {
      return {
        kind: 'not-table',
        reason: `the result has ${members.length} arrays of objects (${members
          .slice(0, 5)
          .map(([key]) => JSON.stringify(key.slice(0, 64)))
          .join(
            ', ',
          )}${members.length > 5 ? ` … and ${(members.length - 5).toLocaleString('en-US')} more` : ''}), so the proxy cannot tell which one is the table`,
      };
    }
  }
  return { kind: 'not-table', reason: 'the result is not a JSON array of objects' };
}

/**
 * Looks for the table in a tool result.
 *
 * @param result - the upstream's `tools/call` result
 * @param options - an explicit pointer, and the text size limit
 */
export function findTable(
  result: CallToolResult,
  options: FindTableOptions,
): FoundTable | NotATable {
  if (result.isError) return { kind: 'not-table', reason: 'the tool returned an error' };
  if (result.structuredContent !== undefined) {
    const found = fromDocument(result.structuredContent, options.pointer);
    if (found.kind === 'table') return found;
  }
  const content = Array.isArray(result.content) ? result.content : [];
  const [block] = content;
  if (content.length !== 1 || block?.type !== 'text') {
    return {
      kind: 'not-table',
      reason: `the result is ${content.length === 1 ? `a ${String(block?.type)} block` : `${content.length} content blocks`}, not one text block holding JSON`,
    };
  }
  const text = block.text.trim();
  if (!text.startsWith('[') && !text.startsWith('{')) {
    return { kind: 'not-table', reason: 'the result is text, not JSON' };
  }
  if (text.length > options.maxTextLength) {
    return {
      kind: 'not-table',
      reason: `the result is ${text.length} characters, more than the ${options.maxTextLength} the proxy parses`,
    };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { kind: 'not-table', reason: 'the result is text that is not valid JSON' };
  }
  return fromDocument(document, options.pointer);
}
