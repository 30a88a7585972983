/**
 * Runs before every test file of a project that shares its module graph across files
 * (`isolate: false`, see vitest.shared.ts): what isolation gave each file for free, it gets here.
 *
 * OpenTelemetry's API keeps the registered tracer provider, meter provider, propagator and
 * context manager in one object on `globalThis`, under this symbol (its `registerGlobal`); a
 * second registration is refused, so a file that registers an SDK starts from none, as it would
 * in a process of its own.
 */
const OTEL_API_GLOBALS = Symbol.for('opentelemetry.js.api.1');
delete (globalThis as Record<symbol, unknown>)[OTEL_API_GLOBALS];
