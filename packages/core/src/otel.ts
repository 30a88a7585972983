/**
 * `@s2sp/core/otel`: OpenTelemetry, optional, for every S2SP package. `@opentelemetry/api` is an
 * optional peer dependency, imported once on first use; without it every helper here answers
 * "nothing" and the caller's work runs as it is. With it but no SDK registered, its own no-op
 * implementations answer. S2SP never registers a provider or propagator itself: it asks the
 * application's global ones, so tracing is on exactly when the application turned it on.
 *
 * One loader for the process: `@s2sp/server`'s spans and metrics and `@s2sp/client`'s trace
 * context on tool calls share it.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

/** The `@opentelemetry/api` module, when installed. */
export type OtelApi = typeof import('@opentelemetry/api');

/** How to import `@opentelemetry/api` (tests pass one that fails, to stand for "not installed"). */
type OtelImporter = () => Promise<OtelApi>;

// A variable, not a literal, so that bundlers do not try to resolve an optional package.
const API_MODULE = '@opentelemetry/api';
const defaultImporter: OtelImporter = () =>
  import(/* @vite-ignore */ API_MODULE) as Promise<OtelApi>;

let loading: Promise<OtelApi | undefined> | undefined;
// undefined: not tried yet; null: not installed; otherwise the module.
let loaded: OtelApi | null | undefined;

/**
 * Starts loading `@opentelemetry/api` (once) and resolves to it, or to `undefined` when it is not
 * installed. Later calls return the same promise.
 *
 * @param importer - how to import the module (tests pass one that fails, to stand for "not installed")
 */
export function loadOtel(importer: OtelImporter = defaultImporter): Promise<OtelApi | undefined> {
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

/**
 * The W3C Trace Context entries (`traceparent`, and `tracestate` when set) of the active span,
 * written by the application's configured propagator: HTTP headers, or the members of an MCP
 * request's `_meta`. Empty without OpenTelemetry or without an active span. Synchronous: pass
 * the API from {@link otel} (or {@link otelIfLoaded} inside work that awaited it).
 *
 * @param api - the loaded API, or `undefined`
 */
export function traceHeaders(api: OtelApi | undefined): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (api) api.propagation.inject(api.context.active(), carrier);
  return carrier;
}
