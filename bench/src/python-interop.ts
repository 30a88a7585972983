/**
 * The Python reference and this implementation redeeming each other's tokens (section
 * `interop`): our `fetchBody` — sending `Idempotency-Key` (PROTOCOL §7.10) and `traceparent`,
 * headers the reference does not know — redeems a token minted by the reference's data plane, and
 * the reference's consumer client (`DirectChannel.fetch_data`) redeems one from ours. A check, not
 * a speed: a wrong answer throws, so the run fails. Without the reference it is skipped with a note.
 */

import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { fetchBody, generateToken, tokenStorageKey } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { prepareTable, serializeTable } from '@s2sp/server';
import { createDataPlaneApp } from '@s2sp/server/http';
import { pythonReferenceMissing, startPythonReference } from './python-reference.js';
import type { BenchRow } from './report.js';

const ROWS = Array.from({ length: 200 }, (_, i) => ({ event: `e${i}`, text: `body ${i}` }));
const PICK = [3, 7, 199];
const expected = PICK.map((id) => ({ _row_id: id, text: `body ${id}` }));

function check(what: string, got: unknown): void {
  if (JSON.stringify(got) !== JSON.stringify(expected))
    throw new Error(`interop: ${what} answered ${JSON.stringify(got).slice(0, 200)}`);
}

/** The two checks, or a note why they were skipped. */
export async function pythonInteropCheck(): Promise<BenchRow[]> {
  const missing = pythonReferenceMissing();
  if (missing) {
    return [
      {
        section: 'interop',
        name: 'Python reference interop',
        values: { result: 'skipped' },
        note: `skipped: ${missing}`,
      },
    ];
  }
  const reference = await startPythonReference();
  const store = createMemoryStore();
  const ours = serve({
    fetch: createDataPlaneApp({ store }).fetch,
    port: 0,
    hostname: '127.0.0.1',
  });
  try {
    await new Promise((resolve) => ours.once('listening', resolve));
    const file = join(tmpdir(), `s2sp-interop-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(ROWS.map((row, i) => ({ _row_id: i, ...row }))));
    await reference.call({ op: 'prepare', file });
    const [token] = await reference.call<string[]>({ op: 'mint', count: 1 });
    const fromReference = await fetchBody(`http://127.0.0.1:${reference.port}/s2sp/data/${token}`, {
      rowIds: PICK,
      columns: ['text'],
      destinations: 'any',
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    check("our fetchBody from the reference's data plane", fromReference.body);

    const ourToken = generateToken();
    await store.put(await tokenStorageKey(ourToken), serializeTable(prepareTable(ROWS)), {
      ttlMs: 60_000,
    });
    const port = (ours.address() as AddressInfo).port;
    const fromOurs = await reference.call<unknown[]>({
      op: 'fetch',
      url: `http://127.0.0.1:${port}/s2sp/data/${ourToken}`,
      row_ids: PICK,
      columns: ['text'],
    });
    check("the reference's fetch_data from our data plane", fromOurs);
    return [
      {
        section: 'interop',
        name: "our fetchBody (Idempotency-Key, traceparent) ← the reference's data plane",
        how: 'one token minted by mcp-sd/python-sdk DirectChannel, 3 of 200 rows, one column',
        values: { rows: fromReference.body.length, result: 'same rows' },
      },
      {
        section: 'interop',
        name: "the reference's DirectChannel.fetch_data ← our data plane",
        how: 'one token of createDataPlaneApp, 3 of 200 rows, one column',
        values: { rows: fromOurs.length, result: 'same rows' },
      },
    ];
  } finally {
    reference.close();
    // A keep-alive connection the reference's client left open must not hold the run.
    (ours as { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise((resolve) => ours.close(resolve));
    await store.close();
  }
}
