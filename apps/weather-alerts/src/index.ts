/**
 * The weather-alerts building blocks, for tests, the demo and your own servers: the S2SP server,
 * the NWS client, the offline replay server and the configuration reader. Nothing here reads the
 * environment or starts anything on import.
 *
 * This file is the app's programmatic API: adding an export here makes it public.
 *
 * @module
 */
export { alertRow } from './alert-rows.js';
export {
  describeAreaCodes,
  isNwsAreaCode,
  NWS_AREA_CODES,
  NWS_MARINE_AREAS,
  NWS_STATE_TERRITORY_AREAS,
  parseAreaCode,
} from './area-codes.js';
export { type CacheStatus, cacheStatus } from './cache-status.js';
export { weatherCapabilities } from './capabilities.js';
export {
  loadConfig,
  loadReplayConfig,
  type ReplayConfig,
  USAGE,
  type WeatherConfig,
} from './config.js';
export { type Coordinates, formatPoint, parseCoordinates } from './coordinates.js';
export {
  type ActiveAlertsQuery,
  createNwsClient,
  DEFAULT_NWS_USER_AGENT,
  NWS_API_URL,
  type NwsAlertFeature,
  type NwsClient,
  type NwsClientOptions,
} from './nws-client.js';
export {
  NwsError,
  type NwsErrorKind,
  type NwsParameterError,
  type NwsProblem,
} from './nws-error.js';
export { createRedisStore, type RedisStoreSettings } from './redis-store.js';
export { defaultFixturesDir, loadNwsFixtures, type NwsFixtures } from './replay/fixtures.js';
export { createNwsReplayApp, type NwsReplayAppOptions } from './replay/replay-app.js';
export {
  type NwsReplayServer,
  type NwsReplayServerOptions,
  startNwsReplayServer,
} from './replay/replay-server.js';
export { alertRowSchema, forecastPeriodSchema } from './row-schemas.js';
export {
  createWeatherServer,
  WEATHER_SERVER_VERSION,
  type WeatherServerOptions,
} from './weather-server.js';
export { workflowPromptText } from './workflow-prompt.js';
