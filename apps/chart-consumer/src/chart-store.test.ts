import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHART_ID_PATTERN, createChartStore, newChartId, type StoredChart } from './chart-store.js';

function chart(title: string): StoredChart {
  return {
    record: {
      id: newChartId(),
      title,
      createdAt: new Date().toISOString(),
      rows: 1,
      panels: [],
      width: 10,
      height: 10,
    },
    svg: `<svg>${title}</svg>`,
    png: new Uint8Array([137, 80, 78, 71]),
  };
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('chart ids', () => {
  it('are unique, match the pattern, and path tricks do not', () => {
    const ids = new Set(Array.from({ length: 200 }, newChartId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(CHART_ID_PATTERN);
    for (const bad of ['../etc/passwd', 'c123/../x', 'C123456', ''])
      expect(CHART_ID_PATTERN.test(bad)).toBe(false);
  });
});

describe('createChartStore', () => {
  it('keeps the newest charts in memory, newest first', async () => {
    const store = createChartStore({ maxCharts: 2 });
    const [a, b, c] = [chart('a'), chart('b'), chart('c')];
    for (const x of [a, b, c]) await store.save(x);
    expect((await store.list()).map((r) => r.title)).toEqual(['c', 'b']);
    expect(await store.get(a.record.id)).toBeUndefined();
    expect((await store.get(c.record.id))?.svg).toBe('<svg>c</svg>');
    expect(await store.get('../x')).toBeUndefined();
  });

  it('keeps charts in a directory across restarts and deletes the oldest files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'charts-'));
    dirs.push(dir);
    const first = createChartStore({ dir, maxCharts: 2 });
    const charts: StoredChart[] = [];
    for (const title of ['a', 'b', 'c']) {
      // Distinct creation times: the listing is ordered by them.
      await new Promise((r) => setTimeout(r, 3));
      charts.push(chart(title));
      await first.save(charts.at(-1)!);
    }
    const second = createChartStore({ dir, maxCharts: 2 });
    expect((await second.list()).map((r) => r.title)).toEqual(['c', 'b']);
    const stored = await second.get(charts[2]!.record.id);
    expect(stored?.png).toEqual(new Uint8Array([137, 80, 78, 71]));
    expect((await readdir(dir)).sort()).toHaveLength(6);
  });

  it('refuses a bad limit', () => {
    expect(() => createChartStore({ maxCharts: 0 })).toThrow(/maxCharts/);
  });
});
