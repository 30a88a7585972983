import type { Panel } from './panels.js';

/** A Vega-Lite specification (kept loose: it is built here and compiled by vega-lite). */
export type VegaLiteSpec = Record<string, unknown>;

const BAR_COLOR = '#3b6ea8';

/**
 * A Vega-Lite specification for a grid of horizontal bar charts, two per row: one per panel,
 * each bar labelled with its height (a count, or the sum of the panel's value column).
 *
 * @param title - the chart title
 * @param panels - the counted panels
 * @param subtitle - a line under the title
 */
export function buildChartSpec(
  title: string,
  panels: readonly Panel[],
  subtitle?: string,
): VegaLiteSpec {
  const heightOf = (panel: Panel) => {
    const title = panel.valueColumn === undefined ? 'count' : `sum of ${panel.valueColumn}`;
    // Whole-number ticks only when every bar is whole (counts always are).
    const whole = panel.counts.every((c) => Number.isInteger(c.count));
    return { title, axis: whole ? { tickMinStep: 1, format: 'd' } : {} };
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      fontSize: 20,
      anchor: 'start',
      offset: 16,
      ...(subtitle && { subtitle, subtitleFontSize: 12 }),
    },
    columns: 2,
    spacing: 40,
    padding: 24,
    background: 'white',
    config: {
      view: { stroke: null },
      axis: { labelFontSize: 11, titleFontSize: 11 },
      title: { fontSize: 14 },
    },
    concat: panels.map((panel) => ({
      title: { text: panel.title, anchor: 'start', frame: 'bounds' },
      width: 360,
      height: { step: 20 },
      data: { values: panel.counts.map((c) => ({ value: c.value, count: c.count })) },
      layer: [
        {
          mark: { type: 'bar', color: BAR_COLOR, cornerRadiusEnd: 2 },
          encoding: {
            // Counts arrive sorted (most frequent first): keep that order.
            y: {
              field: 'value',
              type: 'nominal',
              sort: null,
              title: null,
              axis: { labelLimit: 230, minExtent: 240, maxExtent: 240 },
            },
            x: {
              field: 'count',
              type: 'quantitative',
              title: heightOf(panel).title,
              axis: heightOf(panel).axis,
            },
          },
        },
        {
          mark: { type: 'text', align: 'left', dx: 4, fontSize: 11 },
          encoding: {
            y: { field: 'value', type: 'nominal', sort: null },
            x: { field: 'count', type: 'quantitative' },
            text: { field: 'count', type: 'quantitative' },
          },
        },
      ],
    })),
  };
}
