/**
 * The recorded `tools/list` of every server of the real-server matrix
 * (`test/fixtures/real-servers/tool-lists.json`), as each server answered it: what the proxy's
 * listing is measured on (`tool-listing.test.ts`, and the benchmark's tools/list section), without
 * starting a database. `tool-lists.test.ts` records it with `S2SP_RECORD_FIXTURES=1` and checks,
 * on every run, that it holds each server of `servers.ts` at its pinned version.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One server's recorded answer. */
export interface RecordedToolList {
  /** The npm package's version the answer came from. */
  readonly version: string;
  /** The server's `instructions` at initialisation, if it sent any. */
  readonly instructions?: string;
  /** The `tools` of its `tools/list` result, as sent. */
  readonly tools: readonly Record<string, unknown>[];
}

/** Where the recording is kept. */
export const TOOL_LISTS_FILE: string = fileURLToPath(
  new URL('../fixtures/real-servers/tool-lists.json', import.meta.url),
);

/** The recorded lists, by npm package name. */
export function recordedToolLists(): Record<string, RecordedToolList> {
  return JSON.parse(readFileSync(TOOL_LISTS_FILE, 'utf8')) as Record<string, RecordedToolList>;
}
