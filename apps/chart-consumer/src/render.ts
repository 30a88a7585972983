import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import type { VegaLiteSpec } from './chart-spec.js';

const require = createRequire(import.meta.url);

// A font shipped as an npm package, so the PNG looks the same on every machine, with or without
// system fonts.
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((file) =>
  require.resolve(`dejavu-fonts-ttf/ttf/${file}`),
);

/** A rendered chart. */
export interface RenderedChart {
  readonly svg: string;
  readonly png: Uint8Array;
  readonly width: number;
  readonly height: number;
}

/**
 * Renders a Vega-Lite specification in-process, with no browser and no native build step:
 * Vega's headless view produces SVG, resvg turns it into PNG.
 *
 * @param spec - a Vega-Lite specification
 * @param scale - PNG pixels per SVG pixel (2 for sharp text). Default 2.
 */
export async function renderChart(spec: VegaLiteSpec, scale = 2): Promise<RenderedChart> {
  const svg = await renderSvg(spec);
  return { svg, ...rasterize(svg, scale) };
}

/**
 * Renders a Vega-Lite specification to SVG only (no PNG), in-process.
 *
 * @param spec - a Vega-Lite specification
 */
export async function renderSvg(spec: VegaLiteSpec): Promise<string> {
  const view = new vega.View(
    vega.parse(compile(spec as unknown as Parameters<typeof compile>[0]).spec),
    { renderer: 'none' },
  );
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Turns a rendered chart's SVG into PNG at another scale (a smaller copy to send inline).
 *
 * @param svg - the SVG of a rendered chart
 * @param scale - PNG pixels per SVG pixel
 */
export function rasterize(
  svg: string,
  scale: number,
): { png: Uint8Array; width: number; height: number } {
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    font: {
      loadSystemFonts: false,
      fontFiles: FONT_FILES,
      defaultFontFamily: 'DejaVu Sans',
      sansSerifFamily: 'DejaVu Sans',
    },
  }).render();
  return { png: image.asPng(), width: image.width, height: image.height };
}
