import { type RowWithId, S2SPError } from '@s2sp/core';
import { passResourceUrlToo } from '@s2sp/core/advice';
import {
  type ConsumerFetchOptions,
  createConcurrencyLimit,
  createS2SPServer,
  type Logger,
  type S2SPServer,
} from '@s2sp/server';
import {
  A2S_VERSION,
  type A2SCapability,
  a2sVariable,
  mcpToolStep,
  sealCapability,
} from '@s2sp/server/a2s';
import type { EdgeEnvOptions } from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';
import { z } from 'zod';
import { buildChartSpec } from './chart-spec.js';
import { type ChartStore, createChartStore, newChartId } from './chart-store.js';
import { summarizeChart } from './chart-summary.js';
import { modelImageSvg } from './model-image.js';
import { mountChartPages } from './pages.js';
import {
  choosePanels,
  columnsOf,
  countPanel,
  nonNumericRow,
  WEATHER_ALERT_PANELS,
} from './panels.js';
import { rasterize, renderChart } from './render.js';

/**
 * Largest PNG `draw_chart` sends inline with `include_image` (bytes, before base64). A model
 * reads an inline image as vision tokens, or as text in clients that flatten results; the chart
 * page at `chart_url` has the full-size chart.
 */
export const MAX_INLINE_IMAGE_BYTES = 96 * 1024;

/** Options for {@link createChartServer}. */
export interface ChartServerOptions {
  /** Base URL for chart links and `resource_url`s of this server (`S2SP_PUBLIC_URL`). */
  readonly publicUrl?: string;
  /**
   * Origins `draw_chart` may fetch bodies from (`S2SP_ALLOWED_ORIGINS`), loopback ones included;
   * an entry may carry a path prefix. Without a list only public internet addresses are fetched
   * (see `fetch.destinations`).
   */
  readonly allowedOrigins?: readonly string[];
  /** How many charts render at once (`CHART_MAX_CONCURRENT_RENDERS`). Default 2. */
  readonly maxConcurrentRenders?: number;
  /** How many more renders may wait; beyond that `draw_chart` fails at once. Default 8. */
  readonly maxQueuedRenders?: number;
  /** Keep charts in this directory (`CHART_DIR`); default: memory. */
  readonly chartDir?: string;
  /** How many charts to keep. Default 50. */
  readonly maxCharts?: number;
  readonly logger?: Logger;
  /**
   * Extra consumer fetch settings: timeout, size cap, `destinations` (`S2SP_CONSUMER_DESTINATIONS`),
   * `pathPrefixes` (`S2SP_PATH_PREFIXES`), `maxConcurrentFetches` (`S2SP_MAX_CONCURRENT_FETCHES`).
   */
  readonly fetch?: Omit<ConsumerFetchOptions, 'allowedOrigins'>;
  /** Also serve `draw_chart` over SLOP (`GET /tools`, `POST /tools/draw_chart`). Default: off. */
  readonly slop?: SlopOptions;
  /** The HTTP edge: allowed hosts and browser origins, bearer auth, body read timeout. */
  readonly edge?: EdgeEnvOptions;
}

/**
 * The chart consumer's pipeline step as an A2S capability: one Custom step calling `draw_chart`
 * with the abstract rows and `resource_url` a resource capability produced (`${ABSTRACT_ROWS}`,
 * `${RESOURCE_URL}`); the consumer fetches the body itself, server to server.
 *
 * @param baseUrl - the chart consumer's advertised base URL
 */
export async function chartCapabilities(baseUrl: string): Promise<A2SCapability[]> {
  return [
    await sealCapability({
      a2s: A2S_VERSION,
      name: 'DrawChart',
      description:
        'Draws a statistics chart (bar panels of value counts) of rows chosen from an S2SP resource tool, fetching their full columns server to server',
      domains: [new URL(baseUrl).host],
      version: '1.0',
      execution: {
        type: 'sequence',
        steps: [
          mcpToolStep({
            id: 'draw_chart',
            endpoint: `${baseUrl}/mcp`,
            tool: 'draw_chart',
            description:
              'S2SP consumer tool: merges the abstract rows with the body it fetches from resource_url, then charts them.',
            inputTemplate: {
              abstract_data: a2sVariable('ABSTRACT_ROWS'),
              resource_url: a2sVariable('RESOURCE_URL'),
              group_by: a2sVariable('GROUP_BY'),
            },
            outputMapping: { CHART_URL: '$.chart_url', CHART_ID: '$.chart_id' },
          }),
        ],
      },
    }),
  ];
}

/** The chart consumer: an S2SP server with `draw_chart` and the chart pages. */
export interface ChartServer {
  readonly server: S2SPServer;
  readonly charts: ChartStore;
  /** Sets the base of chart links when it is known only after `listen()`. */
  setBaseUrl(url: string): void;
}

function parseColumns(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value)
    ? value
    : String(value).trim().startsWith('[')
      ? (JSON.parse(String(value)) as unknown[])
      : String(value).split(',');
  const names = list.map((v) => String(v).trim()).filter(Boolean);
  return names.length > 0 ? [...new Set(names)] : undefined;
}

/**
 * Creates the chart consumer server. `draw_chart` receives merged rows (PROTOCOL §4) and draws a
 * statistics chart: for NWS alerts the eight panels of the reference (event, severity, urgency,
 * certainty, office, message type, category, area), for any other table the panels named by
 * `group_by` or chosen from its categorical columns. It returns `chart_url` and a short JSON
 * summary of counts; a small PNG only with `include_image`.
 */
export function createChartServer(options: ChartServerOptions = {}): ChartServer {
  const charts = createChartStore({
    ...(options.chartDir && { dir: options.chartDir }),
    ...(options.maxCharts && { maxCharts: options.maxCharts }),
  });
  let baseUrl = options.publicUrl?.replace(/\/+$/, '');
  // Rendering is CPU-bound: unbounded, one batch of 100 calls blocked the event loop for 31.6 s.
  const renders = createConcurrencyLimit({
    concurrency: options.maxConcurrentRenders ?? 2,
    queue: options.maxQueuedRenders ?? 8,
    what: 'chart renders',
  });
  const server = createS2SPServer({
    name: 'chart-consumer',
    version: '0.1.0',
    ...(options.publicUrl && { publicUrl: options.publicUrl }),
    ...(options.logger && { logger: options.logger }),
    ...options.edge,
    consumer: {
      ...options.fetch,
      ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
    },
    instructions:
      'Draws statistics charts of tables that S2SP resource tools return. Pass the resource_url to draw_chart with the row_ids you chose (or the filter you used, or the abstract rows).',
  });

  server.consumerTool(
    'draw_chart',
    {
      title: 'Draw a statistics chart',
      description:
        'Draws a bar-chart panel per column, counting the values of the rows (or, with value_column, summing a numeric column per value). For weather alerts it draws event type, severity, urgency, certainty, NWS office, message type, category and affected area. Returns chart_url (a page showing the chart: give it to the user) and a short summary of counts; set include_image to also get a small PNG.',
      inputSchema: {
        group_by: z
          .union([z.string(), z.array(z.string())])
          .optional()
          .describe(
            'Columns to chart, comma-separated or a JSON array (at most 8). Omit to let the tool choose.',
          ),
        value_column: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe(
            'A numeric column whose values, summed per bar, are the bar heights (e.g. "n" for rows that already hold counts, as a GROUP BY answer does). Omit to count rows.',
          ),
        title: z.string().max(200).optional().describe('Chart title. Omit for a default one.'),
        include_image: z
          .boolean()
          .optional()
          .describe(
            `Also return the chart as a PNG image (at most ${MAX_INLINE_IMAGE_BYTES / 1024} KiB; bars of columns you did not pass in abstract_data are labelled by rank). Default false: chart_url shows it.`,
          ),
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    async (rows: RowWithId[], args, _extra, info) => {
      if (rows.length === 0) {
        throw new S2SPError(
          'invalid_request',
          'No rows to chart: pass at least one abstract row (with its _row_id) in abstract_data.',
        );
      }
      let groupBy: string[] | undefined;
      try {
        groupBy = parseColumns(args.group_by);
      } catch {
        throw new S2SPError(
          'invalid_request',
          'group_by is not valid: pass column names as "event,severity" or ["event","severity"].',
        );
      }
      // Abstract rows alone hold only the columns the model chose: charting them as if they were
      // the table would report success for half a chart. Without a body, the model must say
      // which of its columns to chart.
      if (info.bodySource === 'none' && !groupBy) {
        throw new S2SPError(
          'invalid_request',
          `draw_chart got abstract_data only, which lacks the other columns. ${passResourceUrlToo} To chart only columns you passed yourself, name them in group_by.`,
        );
      }
      const columns = columnsOf(rows);
      const unknown = (groupBy ?? []).filter((c) => !columns.includes(c));
      if (unknown.length > 0) {
        throw new S2SPError(
          'invalid_request',
          `group_by names columns the rows do not have: ${unknown.join(', ')}. Available columns: ${columns.join(', ')}.`,
        );
      }
      const valueColumn = args.value_column;
      if (valueColumn !== undefined) {
        if (!columns.includes(valueColumn)) {
          throw new S2SPError(
            'invalid_request',
            `value_column names a column the rows do not have: ${valueColumn.slice(0, 40)}. Available columns: ${columns.join(', ')}.`,
          );
        }
        if (groupBy?.includes(valueColumn)) {
          throw new S2SPError(
            'invalid_request',
            `value_column "${valueColumn.slice(0, 40)}" is also in group_by: name the columns to group by in group_by and the numeric column to sum in value_column.`,
          );
        }
        // The value itself is not quoted: it may be a body value the model never saw.
        const bad = nonNumericRow(rows, valueColumn);
        if (bad) {
          throw new S2SPError(
            'invalid_request',
            `value_column "${valueColumn.slice(0, 40)}" must hold numbers, but row ${bad.rowId} has a ${bad.type}. Name a numeric column, or leave value_column out to count rows.`,
          );
        }
      }
      const definitions = choosePanels(rows, groupBy, valueColumn);
      if (definitions.length === 0) {
        throw new S2SPError(
          'invalid_request',
          `None of the columns looks categorical enough to chart. Pass group_by with the columns to count; available: ${columns.join(', ')}.`,
        );
      }
      const panels = definitions.map((d) => countPanel(rows, d));
      const isAlerts =
        !groupBy &&
        valueColumn === undefined &&
        definitions.every((d) => WEATHER_ALERT_PANELS.includes(d));
      const title =
        args.title ??
        (isAlerts
          ? `Weather Alert Statistics (${rows.length} alerts)`
          : `Statistics (${rows.length} rows)`);
      const rendered = await renders.run(() => renderChart(buildChartSpec(title, panels)));
      const id = newChartId();
      await charts.save({
        record: {
          id,
          title,
          createdAt: new Date().toISOString(),
          rows: rows.length,
          panels,
          width: rendered.width,
          height: rendered.height,
        },
        svg: rendered.svg,
        png: rendered.png,
      });
      const summary = summarizeChart(
        { id, url: `${baseUrl ?? ''}/charts/${id}`, rows: rows.length },
        panels,
        info.abstractColumns,
      );
      const content: (
        | { type: 'text'; text: string }
        | { type: 'image'; data: string; mimeType: string }
      )[] = [{ type: 'text', text: JSON.stringify(summary) }];
      if (args.include_image) {
        const svg = await modelImageSvg(
          { title, panels, svg: rendered.svg },
          info.abstractColumns,
          (render) => renders.run(render),
        );
        const small = rasterize(svg, 1);
        content.push(
          small.png.byteLength <= MAX_INLINE_IMAGE_BYTES
            ? {
                type: 'image',
                data: Buffer.from(small.png).toString('base64'),
                mimeType: 'image/png',
              }
            : {
                type: 'text',
                text: `The image is larger than ${MAX_INLINE_IMAGE_BYTES / 1024} KiB and was left out; chart_url shows the chart.`,
              },
        );
      }
      return { content };
    },
  );
  mountChartPages(server.app, charts);
  if (options.slop) server.mountSlop(options.slop);
  server.mountA2S((base) => chartCapabilities(baseUrl ?? base));
  return {
    server,
    charts,
    setBaseUrl(url) {
      baseUrl ??= url.replace(/\/+$/, '');
    },
  };
}
