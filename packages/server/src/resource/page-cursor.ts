import { isTokenShape, S2SPError, sha256Hex } from '@s2sp/core';
import { passNextCursor } from '../advice.js';

/**
 * A paging cursor names one page of one cached table: `c1.<token>.<page>`, where `<token>` is the
 * table's 256-bit resource token. Holding a cursor is holding the `resource_url`, so a cursor is
 * exactly as unguessable as the table's capability and cannot reach any other client's table.
 * Pages are stored under their own SHA-256 keys (never the token), expire with the table, and each
 * is handed out once — paging never uses up the `resource_url` itself.
 */
const CURSOR = /^c1\.([A-Za-z0-9_-]{43})\.(\d{1,7})$/;

/** A decoded paging cursor. */
export interface PageCursor {
  /** The resource token of the cached table. */
  readonly token: string;
  /** The page number, 1 for the page after the first response. */
  readonly page: number;
}

/** Encodes a cursor for page `page` of the table cached under `token`. */
export function encodePageCursor(token: string, page: number): string {
  return `c1.${token}.${page}`;
}

/**
 * Decodes a cursor the model passed back.
 *
 * @throws S2SPError `invalid_request` when it is not a cursor this server hands out
 */
export function decodePageCursor(value: unknown): PageCursor {
  const match = typeof value === 'string' ? CURSOR.exec(value.trim()) : null;
  const token = match?.[1];
  if (!match || !isTokenShape(token)) {
    throw new S2SPError(
      'invalid_request',
      `cursor is not a cursor this tool returned. ${passNextCursor}`,
    );
  }
  return { token, page: Number(match[2]) };
}

/** The body-store key of one page: a SHA-256 digest, so a store never holds a live token. */
export async function pageStorageKey(token: string, page: number): Promise<string> {
  return sha256Hex(`s2sp-page\n${token}\n${page}`);
}
