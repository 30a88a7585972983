// Figure 10: a replica dies. 100 tokens are minted through replica A's resource tool (the MCP
// SDK client, as an agent would), A is SIGKILLed, and every token is redeemed through replica B
// exactly once: three concurrent redemptions each, one 200 with the right rows, two 404s.
import { randomBytes } from 'node:crypto';
import { S2SPResultSchema } from '@s2sp/core';
import { connectMcpClient, startRedis } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';
import { dataUrl, redeem } from './support/http.js';
import { startReplica } from './support/replicas.js';

const TOKENS = bySize(100, 1000);

describe('figure 10: replica restart', () => {
  it(`${TOKENS} tokens minted on replica A; SIGKILL A; each redeems exactly once through replica B`, async () => {
    await using redis = await startRedis({ spawn: true });
    const keyPrefix = `rel-${randomBytes(4).toString('hex')}:`;
    const config = { store: 'redis', redisUrl: redis.url, keyPrefix } as const;
    await using a = await startReplica(config);
    await using b = await startReplica(config);

    const urls: string[] = [];
    {
      await using agent = await connectMcpClient(a.mcpUrl);
      for (let i = 0; i < TOKENS; i++) {
        const result = await agent.call('get_rows', { abstract_domains: 'kind' });
        expect(result.isError).toBeFalsy();
        urls.push(S2SPResultSchema.parse(result.structuredContent).resource_url as string);
      }
    }
    expect(urls.every((url) => url.startsWith(a.url))).toBe(true);
    await a.kill('SIGKILL');
    expect(a.alive()).toBe(false);

    const expected = {
      body: [3, 5].map((i) => ({
        _row_id: i,
        kind: i % 2 === 0 ? 'even' : 'odd',
        detail: `detail-${i}`,
        score: i * 10,
      })),
      total_rows: 2,
      columns_returned: ['_row_id', 'kind', 'detail', 'score'],
    };
    let exactlyOnce = 0;
    for (let i = 0; i < urls.length; i += 20) {
      const batch = urls.slice(i, i + 20);
      const outcomes = await Promise.all(
        batch.map(async (url) => {
          const token = new URL(url).pathname.split('/').pop() as string;
          return Promise.all(
            [0, 1, 2].map(() => redeem(dataUrl(b.url, token), { row_ids: [5, 3] })),
          );
        }),
      );
      for (const answers of outcomes) {
        const ok = answers.filter((answer) => answer.status === 200);
        const gone = answers.filter((answer) => answer.status === 404);
        if (ok.length !== 1 || gone.length !== 2) continue;
        expect(JSON.parse(ok[0]?.body ?? '')).toEqual(expected);
        exactlyOnce++;
      }
    }
    recordFigure({
      id: '10.1',
      title: `Tokens minted on replica A, redeemed through replica B after SIGKILL of A: exactly one 200 (with the right rows) of 3 concurrent redemptions`,
      value: `${exactlyOnce}/${TOKENS}`,
      target: `${TOKENS}/${TOKENS}`,
      met: exactlyOnce === TOKENS,
    });
    expect(exactlyOnce).toBe(TOKENS);
    const stats = await b.stats();
    expect(stats.stats.entries).toBe(0);
  });
});
