/**
 * OpenTelemetry, optional: `@opentelemetry/api` is an optional peer dependency, imported once on
 * first use. Without it every span and metric helper calls straight through; with it but no SDK
 * registered, its own no-op tracer and meter answer. S2SP never registers a provider itself: it
 * asks the application's global one, so tracing is on exactly when the application turned it on.
 *
 * @module
 */

import { version } from '../../package.json';

/** The `@opentelemetry/api` module, when installed. */
export type OtelApi = typeof import('@opentelemetry/api');

/** The instrumentation scope every span and instrument of this package is created under. */
export const INSTRUMENTATION_SCOPE = '@s2sp/server';
/** The version reported with {@link INSTRUMENTATION_SCOPE}. */
export const INSTRUMENTATION_VERSION: string = version;

type Importer = () => Promise<OtelApi>;

// A variable, not a literal, so that bundlers do not try to resolve an optional package.
const API_MODULE = '@opentelemetry/api';
const defaultImporter: Importer = () => import(/* @vite-ignore */ API_MODULE) as Promise<OtelApi>;

let loading: Promise<OtelApi | undefined> | undefined;
// undefined: not tried yet; null: not installed; otherwise the module.
let loaded: OtelApi | null | undefined;

/**
 * Starts loading `@opentelemetry/api` (once) and resolves to it, or to `undefined` when it is not
 * installed. Later calls return the same promise.
 *
 * @param importer - how to import the module (tests pass one that fails, to stand for "not installed")
 */
export function loadOtel(importer: Importer = defaultImporter): Promise<OtelApi | undefined> {
  loading ??= importer().then(
    (api) => {
      loaded = api;
      return api;
    },
    () => {
      loaded = null;
      return undefined;
    },
  );
  return loading;
}

/**
 * The API when it has finished loading, `undefined` otherwise (not installed, or still loading):
 * the synchronous check a hot path makes once per call, never per row.
 */
export function otelIfLoaded(): OtelApi | undefined {
  return loaded ?? undefined;
}

/** The API, waiting for the first load if it is still under way. */
export async function otel(): Promise<OtelApi | undefined> {
  if (loaded !== undefined) return loaded ?? undefined;
  return loadOtel();
}

/** Forgets the loaded module, so a test can load it again with another importer. */
export function resetOtelForTests(): void {
  loading = undefined;
  loaded = undefined;
}
