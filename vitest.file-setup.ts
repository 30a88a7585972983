/**
 * Runs before every test file of a project that shares its module graph across files
 * (`isolate: false`, see vitest.shared.ts): what isolation gave each file for free, it gets here.
 *
 * OpenTelemetry: a file that registers an SDK must start from none, as it would in a process of
 * its own. The API keeps the registered providers, propagator and context manager in one object
 * on `globalThis` (its `registerGlobal`, under this symbol), and each loaded copy of the API keeps
 * a proxy tracer provider that still delegates to the last SDK registered through it. A test
 * file's `import '@opentelemetry/api'` and the copy `@s2sp/core/otel` loads on first use can be
 * two copies, so a file's `trace.disable()` resets only its own: the copy core loaded is reset
 * here, and then forgotten, as a fresh process would have it.
 */
import { otelIfLoaded, resetOtelForTests } from '@s2sp/core/otel';

const loaded = otelIfLoaded();
if (loaded) {
  loaded.trace.disable();
  loaded.context.disable();
  loaded.propagation.disable();
  loaded.metrics.disable();
}
resetOtelForTests();
delete (globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')];
