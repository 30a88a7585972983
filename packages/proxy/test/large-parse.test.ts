/**
 * A large table's parse never keeps the proxy from its other clients: while one client's plain
 * call of a tool returning a large HTML or CSV table is being read (the proxy reads a plain result
 * to learn its columns), another client's health checks keep being answered, each with 200. The
 * proxy runs in its own process (the CLI).
 *
 * No clock here: how long the other client waits at most, against the whole call, and what cells
 * of `&` cost against cells of letters, are speeds, measured by `pnpm bench --only=proxy-parse`
 * (bench/src/proxy-parse.ts) with their targets. That each parser is linear in its input,
 * hostile `&` runs included, is packages/proxy/src/tables/formats/parse-time.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawCall, rawSession } from './raw-mcp.js';
import { HOSTILE_SERVER, type RunningCli, startCli } from './support.js';

describe('a large table parse and the other clients', () => {
  let cli: RunningCli;
  let mcpUrl: string;

  beforeAll(async () => {
    cli = await startCli(HOSTILE_SERVER);
    mcpUrl = cli.mcpUrl;
  });

  afterAll(() => cli.stop());

  it.each([
    [
      'an HTML table of 1,200,000 cells',
      'html_table',
      { cells: 4, rows: 300_000, size: 3, fill: 'abc' },
    ],
    ['a CSV table of 300,000 rows', 'csv_table', { rows: 300_000 }],
    ['an HTML table of 4 cells of a million `&`', 'html_table', { cells: 4, size: 1_000_000 }],
  ])(
    '%s: health checks are answered while it is read',
    async (_, name, args) => {
      const health = mcpUrl.replace(/\/mcp$/, '/s2sp/health');
      const { sessionId } = await rawSession(mcpUrl);
      expect(sessionId).toBeDefined();

      // The other client asks again as soon as it is answered, until the call is answered.
      let done = false;
      const statuses: number[] = [];
      const other = (async () => {
        while (!done) {
          const response = await fetch(health);
          await response.text();
          statuses.push(response.status);
        }
      })();
      const call = await rawCall(mcpUrl, sessionId as string, name, args);
      done = true;
      await other;

      expect(call.status).toBe(200);
      expect(call.result?.isError).toBeUndefined();
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    },
    180_000,
  );
});
