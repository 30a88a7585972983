/**
 * This package's OpenTelemetry identity. The loader of the optional `@opentelemetry/api` is
 * `@s2sp/core/otel`, shared with `@s2sp/client`; it is re-exported here for this package's
 * modules. S2SP never registers a provider itself: it asks the application's global one, so
 * tracing is on exactly when the application turned it on.
 *
 * @module
 */

import { version } from '../../package.json';

export {
  loadOtel,
  type OtelApi,
  otel,
  otelIfLoaded,
  resetOtelForTests,
} from '@s2sp/core/otel';

/** The instrumentation scope every span and instrument of this package is created under. */
export const INSTRUMENTATION_SCOPE = '@s2sp/server';
/** The version reported with {@link INSTRUMENTATION_SCOPE}. */
export const INSTRUMENTATION_VERSION: string = version;
