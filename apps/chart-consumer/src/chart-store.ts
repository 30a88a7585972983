import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Panel } from './panels.js';

/** What is kept about a chart besides its images. */
export interface ChartRecord {
  readonly id: string;
  readonly title: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  readonly rows: number;
  readonly panels: readonly Panel[];
  readonly width: number;
  readonly height: number;
}

/** A chart with its images. */
export interface StoredChart {
  readonly record: ChartRecord;
  readonly svg: string;
  readonly png: Uint8Array;
}

/** Keeps the most recent charts, in memory or in a directory. */
export interface ChartStore {
  /** Stores a chart; the oldest beyond the limit are dropped. */
  save(chart: StoredChart): Promise<void>;
  /** Every kept chart's record, newest first. */
  list(): Promise<ChartRecord[]>;
  /** One chart, or undefined. */
  get(id: string): Promise<StoredChart | undefined>;
}

/** Chart ids are generated here; anything else (such as `../x`) is never a valid id. */
export const CHART_ID_PATTERN = /^c[0-9a-z]{6,40}$/;

/** A new chart id: time-ordered, then random. */
export function newChartId(): string {
  const random = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return `c${Date.now().toString(36)}${Array.from(random, (n) => n.toString(36).padStart(7, '0')).join('')}`;
}

/** Options for {@link createChartStore}. */
export interface ChartStoreOptions {
  /** Directory to keep charts in (created if missing); default: memory only. */
  readonly dir?: string;
  /** How many charts to keep. Default 50. */
  readonly maxCharts?: number;
}

/**
 * A bounded chart store. With `dir`, each chart is three files (`<id>.json`, `.svg`, `.png`)
 * and charts already in the directory are listed after a restart.
 */
export function createChartStore(options: ChartStoreOptions = {}): ChartStore {
  const maxCharts = options.maxCharts ?? 50;
  if (!Number.isSafeInteger(maxCharts) || maxCharts <= 0)
    throw new Error(`maxCharts must be a positive whole number, got ${String(options.maxCharts)}.`);
  const memory = new Map<string, StoredChart>();
  const dir = options.dir;

  if (!dir) {
    return {
      async save(chart) {
        memory.set(chart.record.id, chart);
        for (const id of memory.keys()) {
          if (memory.size <= maxCharts) break;
          memory.delete(id);
        }
      },
      async list() {
        return [...memory.values()].map((c) => c.record).reverse();
      },
      async get(id) {
        return CHART_ID_PATTERN.test(id) ? memory.get(id) : undefined;
      },
    };
  }

  const ready = mkdir(dir, { recursive: true });
  const records = async (): Promise<ChartRecord[]> => {
    await ready;
    const files = (await readdir(dir)).filter(
      (f) => f.endsWith('.json') && CHART_ID_PATTERN.test(f.slice(0, -5)),
    );
    const all = await Promise.all(
      files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as ChartRecord),
    );
    return all.sort((a, b) =>
      a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id.localeCompare(a.id),
    );
  };
  return {
    async save(chart) {
      await ready;
      const { id } = chart.record;
      await writeFile(join(dir, `${id}.svg`), chart.svg);
      await writeFile(join(dir, `${id}.png`), chart.png);
      // The record last: a chart is listed only once its images are complete.
      await writeFile(join(dir, `${id}.json`), JSON.stringify(chart.record));
      const stale = (await records()).slice(maxCharts);
      await Promise.all(
        stale.flatMap((r) =>
          ['json', 'svg', 'png'].map((ext) => rm(join(dir, `${r.id}.${ext}`), { force: true })),
        ),
      );
    },
    list: records,
    async get(id) {
      if (!CHART_ID_PATTERN.test(id)) return undefined;
      await ready;
      try {
        const [record, svg, png] = await Promise.all([
          readFile(join(dir, `${id}.json`), 'utf8'),
          readFile(join(dir, `${id}.svg`), 'utf8'),
          readFile(join(dir, `${id}.png`)),
        ]);
        return { record: JSON.parse(record) as ChartRecord, svg, png: new Uint8Array(png) };
      } catch {
        return undefined;
      }
    },
  };
}
