import { describe, expect, it } from 'vitest';
import { PROTOCOL } from './protocol.js';
import { readS2SPReceipt } from './receipt.js';

describe('readS2SPReceipt', () => {
  it('reads the receipt under _meta["s2sp/receipt"], keeping members it does not know', () => {
    const receipt = { rows_withheld: 3, columns_withheld: 2, tokens_saved: -4, later: true };
    expect(readS2SPReceipt({ content: [], _meta: { [PROTOCOL.receiptMeta]: receipt } })).toEqual(
      receipt,
    );
  });

  it('reads none from a result without one or with a malformed one', () => {
    const meta = (value: unknown) => ({ _meta: { [PROTOCOL.receiptMeta]: value } });
    expect(readS2SPReceipt({ content: [] })).toBeUndefined();
    expect(readS2SPReceipt(meta({ rows_withheld: -1, columns_withheld: 0, tokens_saved: 0 }))).toBe(
      undefined,
    );
    expect(readS2SPReceipt(meta({ rows_withheld: 1, columns_withheld: 0 }))).toBeUndefined();
    expect(
      readS2SPReceipt(meta({ rows_withheld: 1.5, columns_withheld: 0, tokens_saved: 0 })),
    ).toBe(undefined);
    expect(readS2SPReceipt({ _meta: 'x' })).toBeUndefined();
    expect(readS2SPReceipt(null)).toBeUndefined();
  });
});
