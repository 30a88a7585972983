/**
 * The savings receipt through the proxy counts what the model would have read: the upstream's own
 * answer (CSV, indented JSON, Markdown, HTML), not the rows as compact JSON, less every text block
 * the S2SP result gives the model (the abstract and what follows it). Checked against an o200k
 * count of both sides. The table is short rows of which the abstract keeps a third, so the saving
 * is small beside what is counted and the estimator's error (±10% of a count) is held to the
 * plain answer's count; the real-server matrix holds the receipt within ±10% of the saving on
 * wide tables. Counting the rows' compact JSON instead was off by 80% of the CSV's count.
 */
import { fileURLToPath } from 'node:url';
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../src/upstream/upstream-target.js';
import { httpClient, startProxy, stdioClient } from './support.js';
import { call, type Result } from './table-calls.js';

const SHAPES: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/shapes-server.mjs', import.meta.url))],
};

const tokenizer = new Tiktoken(o200k);

/**
 * How far the receipt may be from the o200k saving, as a share of the plain answer's count: the
 * estimator's ±10%. CSV inside a JSON string was read 8% low (9,940 estimated against 10,828 o200k
 * tokens for 600 rows), its receipt 9.9–10.0% of the count off and held to 11%; a comma before a
 * word is now a token of its own, as in o200k_base, and it is 3.6% off.
 */
const BOUND = 0.1;
/** o200k tokens of every text block of a result: what the model reads of it. */
const readTokens = (result: Result) =>
  result.content.reduce(
    (sum, block) => sum + (block.type === 'text' ? tokenizer.encode(block.text ?? '').length : 0),
    0,
  );

describe('the savings receipt through the proxy', () => {
  it.each(['csv', 'tsv', 'markdown', 'html', 'two_blocks', 'nested', 'prose_json', 'csv_in_json'])(
    '%s: tokens_saved is the o200k count of the upstream answer less the S2SP result, within the estimator band of the answer',
    async (shape) => {
      await using running = await startProxy({ upstream: SHAPES });
      await using agent = await httpClient(running.listener.mcpUrl);
      await using direct = await stdioClient(SHAPES);
      const args = { count: 600 };
      const plain = await call(direct.client, shape, args);
      const split = await call(agent.client, shape, { ...args, abstract_domains: 'city,state' });
      expect(split.isError).toBeFalsy();
      const saved = readTokens(plain) - readTokens(split);
      const receipt = readS2SPReceipt(split);
      expect(saved).toBeGreaterThan(1_000);
      expect(Math.abs((receipt?.tokens_saved ?? 0) - saved) / readTokens(plain)).toBeLessThan(
        BOUND,
      );
    },
    60_000,
  );
});
