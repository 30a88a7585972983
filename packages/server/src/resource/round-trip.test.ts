import type { RowWithId } from '@s2sp/core';
import { DataPlaneResponseSchema, S2SPResultSchema } from '@s2sp/core';
import { collectBytes, createMemoryStore } from '@s2sp/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeRows, parseConsumerArguments } from '../consumer/consumer-arguments.js';
import { parseDataPlaneRequest, requestedRowIds } from '../data-plane/request.js';
import { renderDataPlaneBody } from '../data-plane/response-body.js';
import { assertKnownColumns } from './abstract-domains.js';
import { bodyRows, splitColumns } from './column-split.js';
import { buildAsyncResult, buildSyncResult, serializeS2SPResult } from './s2sp-result.js';
import { prepareTable, serializeTable } from './table.js';

// Column names include awkward ones on purpose: "__proto__", unicode, spaces, commas.
const columnName = fc
  .oneof(
    fc.constantFrom(
      'event',
      'severity',
      'description',
      '__proto__',
      'constructor',
      'a b',
      'x,y',
      'ümlaut',
      '',
    ),
    fc.string({ minLength: 1, maxLength: 6 }),
  )
  .filter((name) => name !== '_row_id');

const table = fc.array(fc.dictionary(columnName, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }), {
  maxLength: 12,
});

/**
 * Validates with a schema but keeps the parsed JSON itself: zod copies loose members by
 * assignment, which would turn a "__proto__" column into a prototype.
 */
function checked<T>(schema: { parse(value: unknown): T }, json: string): T {
  const value = JSON.parse(json) as T;
  schema.parse(value);
  return value;
}

/** The rows as JSON would carry them (drops -0 and undefined), with `_row_id` added. */
function expected(rows: Record<string, unknown>[], ids: readonly number[]): RowWithId[] {
  return ids.map((id) => ({ _row_id: id, ...(JSON.parse(JSON.stringify(rows[id])) as object) }));
}

const scenario = table.chain((rows) => {
  const columns = prepareTable(rows).columns;
  return fc.record({
    rows: fc.constant(rows),
    abstractDomains: fc.subarray([...columns], { minLength: columns.length > 0 ? 1 : 0 }),
    // The rows the agent keeps after filtering on the abstract, in any order.
    kept: fc.shuffledSubarray(rows.map((_, i) => i)),
  });
});

describe('abstract + body gives back the original rows', () => {
  it('in async mode, through the store, the data plane and the consumer merge', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rows, abstractDomains, kept }) => {
        const prepared = prepareTable(rows);
        assertKnownColumns(abstractDomains, prepared.columns, rows.length);
        const split = splitColumns(prepared, abstractDomains);
        const store = createMemoryStore();
        await store.put('key', serializeTable(prepared), { ttlMs: 60_000 });
        const llmView = checked(
          S2SPResultSchema,
          serializeS2SPResult(
            buildAsyncResult(split, { resourceUrl: 'http://h/s2sp/data/t', expiresAt: new Date() }),
          ),
        );

        // The agent filters the abstract and hands the kept rows to a consumer as a JSON string.
        const byId = new Map(llmView.abstract.map((row) => [row._row_id, row]));
        const consumer = parseConsumerArguments({
          abstract_data: JSON.stringify(kept.map((id) => byId.get(id))),
        });
        const request = parseDataPlaneRequest(
          JSON.stringify({ row_ids: (consumer.abstractRows ?? []).map((r) => r._row_id) }),
        );
        const ids = requestedRowIds(request);
        const taken = await store.take('key', ids);
        if (!taken) throw new Error('entry vanished');
        const response = checked(
          DataPlaneResponseSchema,
          new TextDecoder().decode(
            await collectBytes((await renderDataPlaneBody(taken, request, 'json')).chunks),
          ),
        );

        expect(mergeRows(consumer.abstractRows ?? [], response.body)).toEqual(expected(rows, kept));
        expect(response.missing_row_ids).toBeUndefined();
        await store.close();
      }),
      { numRuns: 300 },
    );
  });

  it('in sync mode, with the body passed inline', () => {
    fc.assert(
      fc.property(scenario, ({ rows, abstractDomains, kept }) => {
        const prepared = prepareTable(rows);
        const split = splitColumns(prepared, abstractDomains);
        const wire = checked(
          S2SPResultSchema,
          serializeS2SPResult(buildSyncResult(split, bodyRows(prepared, split.bodyDomains))),
        );
        const byId = new Map(wire.abstract.map((row) => [row._row_id, row]));
        const consumer = parseConsumerArguments({
          abstract_data: JSON.stringify(kept.map((id) => byId.get(id))),
          body_data: JSON.stringify(wire.body),
        });
        expect(mergeRows(consumer.abstractRows ?? [], consumer.bodyRows ?? [])).toEqual(
          expected(rows, kept),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('never lets a body column into the abstract', () => {
    fc.assert(
      fc.property(scenario, ({ rows, abstractDomains }) => {
        const split = splitColumns(prepareTable(rows), abstractDomains);
        const allowed = new Set(['_row_id', ...abstractDomains]);
        for (const row of split.abstract.slice())
          for (const key of Object.keys(row)) expect(allowed.has(key)).toBe(true);
      }),
    );
  });
});
