import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createS2SP } from '../runtime/s2sp.js';
import { listNames } from './abstract-domains.js';
import { estimateTokens } from './token-estimate.js';

const BUDGET = 8_000;
const s2sp = () =>
  createS2SP({ logger: silentLogger, publicUrl: 'https://data.example.com', tokenBudget: BUDGET });
type Text = { content: { text: string }[]; isError?: boolean; _meta?: Record<string, unknown> };
const text = (result: unknown) => (result as Text).content[0]?.text ?? '';
const code = (result: unknown) => (result as Text)._meta?.['s2sp/error-code'];

// 20,000 column names of 60 characters each: about 300,000 tokens of names alone.
const WIDE = Array.from(
  { length: 20_000 },
  (_, i) => `column_${String(i).padStart(5, '0')}_${'x'.repeat(47)}`,
);
const wideRows = Array.from({ length: 1 }, (_, r) =>
  Object.fromEntries(WIDE.map((name, i) => [name, r * i])),
);

describe('the token budget covers every text the model reads', () => {
  it('a result with 20,000 long column names lists body_domains within the budget, labelled', async () => {
    const runtime = s2sp();
    for (const mode of ['async', 'sync'] as const) {
      const result = await runtime.resourceResult(wideRows, {
        abstract_domains: WIDE[0],
        mode,
      });
      expect((result as Text).isError, text(result)).toBeFalsy();
      expect(estimateTokens(text(result).replace(/"body":\[.*\]/, ''))).toBeLessThanOrEqual(BUDGET);
      const parsed = (result as { structuredContent: Record<string, unknown> }).structuredContent;
      const listed = parsed.body_domains as string[];
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.length + (parsed.body_domains_omitted as number)).toBe(19_999);
    }
    await runtime.close();
  });

  it('one 2 MiB abstract cell: payload_too_large in async mode, as in sync mode', async () => {
    const runtime = s2sp();
    const rows = [
      { id: 1, abstract: 'y'.repeat(2 * 1024 * 1024), notes: 'n' },
      { id: 2, abstract: 'short', notes: 'n' },
    ];
    for (const mode of ['async', 'sync'] as const) {
      const result = await runtime.resourceResult(rows, { abstract_domains: 'abstract', mode });
      expect(code(result)).toBe('payload_too_large');
      expect(text(result).length).toBeLessThan(600);
    }
    // The same table with a short abstract column is fine.
    const fine = await runtime.resourceResult(rows, { abstract_domains: 'id' });
    expect((fine as Text).isError).toBeFalsy();
    await runtime.close();
  });

  it('the unknown-column error on a 20,000-column table is short and labelled', async () => {
    const runtime = s2sp();
    const result = await runtime.resourceResult(wideRows, { abstract_domains: 'nope' });
    expect(code(result)).toBe('invalid_request');
    expect(text(result)).toContain('… and 19,980 more');
    expect(text(result).length).toBeLessThan(2_500);
    expect(estimateTokens(text(result))).toBeLessThan(1_000);
    await runtime.close();
  });

  it('listNames lists at most 20 names of at most 64 characters', () => {
    expect(listNames(['a', 'b'])).toBe('"a", "b"');
    const many = listNames(Array.from({ length: 25 }, (_, i) => `${'n'.repeat(100)}${i}`));
    expect(many).toMatch(/… and 5 more$/);
    expect(many).toContain(`"${'n'.repeat(64)}…"`);
  });

  it('listNames takes how many to show and a label for each', () => {
    const types = ['VARCHAR', 'BIGINT', 'DOUBLE'];
    expect(listNames(['s', 'n', 'x'], { max: 2, label: (i) => types[i] ?? '' })).toBe(
      '"s" VARCHAR, "n" BIGINT … and 1 more',
    );
    expect(listNames(['s', 'n', 'x'], { max: 0 })).toBe('… and 3 more');
  });
});
