/** A sync-mode resource result as a server sends it, for the dispatcher and adapter tests. */

/** Every body value here contains this, like the pipeline's BODY_MARKER. */
const BODY_MARKER = 'BODY-VALUE';

export const SYNC_RESULT = {
  total_rows: 2,
  abstract_domains: ['event'],
  body_domains: ['description'],
  abstract: [
    { _row_id: 0, event: 'Wind' },
    { _row_id: 1, event: 'Heat' },
  ],
  body: [
    { _row_id: 0, description: `${BODY_MARKER}-0` },
    { _row_id: 1, description: `${BODY_MARKER}-1` },
  ],
};

/** The `ddi://` handle in a rewritten result's text. */
export function handleIn(text: string): string {
  const match = /ddi:\/\/[A-Za-z0-9_-]+/.exec(text);
  if (!match) throw new Error(`no ddi:// handle in ${text.slice(0, 200)}`);
  return match[0];
}
