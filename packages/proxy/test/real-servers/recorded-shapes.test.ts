/**
 * The matrix's recorded answers (`test/fixtures/real-servers/`), offline: the table detection
 * finds in each the rows its test found live — with the configured run's `--table-tool` rule,
 * and with no rule where `servers.ts` says the tool works without a flag (naming the table where
 * it says so). A change to detection that loses a real server's shape fails here in
 * milliseconds, before the live matrix runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findTable } from '../../src/index.js';
import type { CallToolResult } from '../../src/mcp-sdk.js';
import { parseJsonPointer } from '../../src/tables/json-pointer.js';
import { parseTableToolRule } from '../../src/tables/table-tool-rule.js';
import { MATRIX } from './servers.js';

const maxTextLength = 1_000_000;

const recorded = (fixture: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/real-servers/${fixture}.json`, import.meta.url), 'utf8'),
  ) as CallToolResult;

describe('the recorded answers of the matrix tools', () => {
  for (const { server, tools } of MATRIX) {
    for (const { tool, fixture, fixtureRows, flag, withoutFlag } of tools) {
      it(`${server} ${tool}`, () => {
        const result = recorded(fixture);
        const rule = parseTableToolRule('--table-tool', flag);
        const configured = findTable(result, {
          maxTextLength,
          ...(rule.pointer && { pointer: parseJsonPointer(rule.pointer) }),
          ...(rule.format && { format: rule.format }),
        });
        expect(configured.kind, JSON.stringify(configured).slice(0, 300)).toBe('table');
        if (configured.kind !== 'table') return;
        expect(configured.rows).toHaveLength(fixtureRows);

        if (withoutFlag === 'detected') {
          const detected = findTable(result, { maxTextLength });
          expect(detected.kind === 'table' && detected.rows).toEqual(configured.rows);
        } else if (typeof withoutFlag === 'object') {
          // Several arrays: none is picked without the model's choice, and its choice is found.
          const ambiguous = findTable(result, { maxTextLength });
          expect(ambiguous.kind).toBe('not-table');
          expect(ambiguous.arrays?.map((array) => array.pointer)).toContain(
            `/${withoutFlag.table}`,
          );
          const named = findTable(result, { maxTextLength, table: withoutFlag.table });
          expect(named.kind === 'table' && named.rows).toEqual(configured.rows);
        }
        // `writes` and `no-table-declared`: the tool listing, not detection, keeps S2SP away.
      });
    }
  }
});
