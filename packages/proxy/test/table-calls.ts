/**
 * Calls of the proxy's table tools for the paging and filter tests: results as S2SP objects, the
 * error code, the fixture's call counts, and every page of a paged result.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type S2SPResult, S2SPResultSchema } from '@s2sp/core';
import { estimateTokens } from '@s2sp/server';
import { expect } from 'vitest';

export type Result = {
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};
export const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;
export const code = (result: Result) => result._meta?.['s2sp/error-code'];
export const text = (result: Result) => result.content[0]?.text ?? '';
export const s2sp = (result: Result): S2SPResult => {
  expect(result.isError, text(result)).toBeFalsy();
  return S2SPResultSchema.parse(result.structuredContent);
};
export const counts = async (client: Client) =>
  JSON.parse(text(await call(client, 'call_counts'))) as Record<string, number>;
/** A tool as the proxy lists it (the fixture lists four tools a page). */
export async function listed(client: Client, name: string) {
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    const found = page.tools.find((t) => t.name === name);
    if (found) return found;
    cursor = page.nextCursor;
  } while (cursor);
  return undefined;
}
export const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Follows every next_cursor; returns the pages after the first, each checked against the budget. */
export async function rest(client: Client, first: S2SPResult, budget: number, tool = 'big') {
  const pages: S2SPResult[] = [];
  let cursor = first.next_cursor;
  while (cursor !== undefined) {
    const page = await call(client, tool, { cursor });
    expect(estimateTokens(text(page))).toBeLessThanOrEqual(budget);
    const result = s2sp(page);
    pages.push(result);
    cursor = result.next_cursor;
  }
  return pages;
}
