/**
 * The chart consumer's building blocks, for tests and the demo.
 *
 * @module
 */

export {
  type ChartServer,
  type ChartServerOptions,
  chartCapabilities,
  createChartServer,
} from './chart-server.js';
export { buildChartSpec, type VegaLiteSpec } from './chart-spec.js';
export {
  type ChartRecord,
  type ChartStore,
  type ChartStoreOptions,
  createChartStore,
  type StoredChart,
} from './chart-store.js';
export { type ChartConfig, loadConfig, USAGE } from './config.js';
export {
  choosePanels,
  countPanel,
  type Panel,
  type PanelDefinition,
  WEATHER_ALERT_PANELS,
} from './panels.js';
export { type RenderedChart, renderChart } from './render.js';
