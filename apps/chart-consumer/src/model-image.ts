import { buildChartSpec } from './chart-spec.js';
import type { Panel } from './panels.js';
import { renderSvg } from './render.js';

/** The line under the title of an image whose body-column labels are hidden. */
export const HIDDEN_LABELS_NOTE =
  'Labels of columns not in abstract_data are hidden (#1 = most frequent); chart_url shows them.';

/**
 * The panels as the model may see them in an image: bars and counts everywhere, value labels only
 * for the columns it passed in `abstract_data`. A label drawn from a body column is body data in
 * pixels — what S2SP keeps from the model, and a channel for a hostile resource server's
 * instructions to a vision model — so it becomes its rank (`#1`, `#2`, …).
 *
 * @param panels - the counted panels
 * @param abstractColumns - the columns of `abstract_data`
 * @returns the same array when no label is hidden
 */
export function hideBodyLabels(
  panels: readonly Panel[],
  abstractColumns: readonly string[],
): readonly Panel[] {
  if (panels.every((panel) => abstractColumns.includes(panel.column))) return panels;
  return panels.map((panel) =>
    abstractColumns.includes(panel.column)
      ? panel
      : { ...panel, counts: panel.counts.map((c, i) => ({ value: `#${i + 1}`, count: c.count })) },
  );
}

/**
 * The SVG of the chart as `include_image` shows it to the model: the chart itself when every
 * panel counts an abstract column, else a rendering with body-column labels hidden.
 *
 * @param chart - the chart's title, panels and full SVG
 * @param abstractColumns - the columns of `abstract_data`
 * @param limit - runs a new rendering (the consumer's render limit); not used when none is needed
 */
export async function modelImageSvg(
  chart: { readonly title: string; readonly panels: readonly Panel[]; readonly svg: string },
  abstractColumns: readonly string[],
  limit: (render: () => Promise<string>) => Promise<string> = (render) => render(),
): Promise<string> {
  const shown = hideBodyLabels(chart.panels, abstractColumns);
  if (shown === chart.panels) return chart.svg;
  return limit(() => renderSvg(buildChartSpec(chart.title, shown, HIDDEN_LABELS_NOTE)));
}
