/**
 * The metrics S2SP reports through the application's global meter provider, for alerting:
 * redemptions by outcome, bytes served, rows and columns withheld from the model, model tokens
 * saved, and the store's entries and bytes. Without `@opentelemetry/api` (or without a registered
 * SDK) nothing is recorded and nothing is allocated per call.
 *
 * @module
 */

import type { Counter, MeterProvider, ObservableGauge } from '@opentelemetry/api';
import type { S2SPReceipt } from '@s2sp/core/receipt';
import type { BodyStore } from '@s2sp/core/store';
import { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION, loadOtel, otelIfLoaded } from './otel.js';

/** The names of the instruments (documented in the server's README). */
export const METRIC_NAMES = Object.freeze({
  redemptions: 's2sp.data_plane.redemptions',
  bytesServed: 's2sp.data_plane.bytes_served',
  rowsWithheld: 's2sp.model.rows_withheld',
  columnsWithheld: 's2sp.model.columns_withheld',
  tokensSaved: 's2sp.model.tokens_saved',
  storeEntries: 's2sp.store.entries',
  storeBytes: 's2sp.store.bytes',
});

interface Instruments {
  readonly redemptions: Counter;
  readonly bytesServed: Counter;
  readonly rowsWithheld: Counter;
  readonly columnsWithheld: Counter;
  readonly tokensSaved: Counter;
  readonly storeEntries: ObservableGauge;
  readonly storeBytes: ObservableGauge;
}

// Per meter provider: the metrics API has no proxy provider, so instruments made before the
// application registered its SDK would stay no-ops; a new provider gets new instruments.
let cached: { provider: MeterProvider; instruments: Instruments } | undefined;

function instruments(): Instruments | undefined {
  const api = otelIfLoaded();
  if (!api) return undefined;
  const provider = api.metrics.getMeterProvider();
  if (cached?.provider === provider) return cached.instruments;
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION);
  const made: Instruments = {
    redemptions: meter.createCounter(METRIC_NAMES.redemptions, {
      description:
        'Data-plane requests for a resource_url, by outcome (ok or the S2SP error code).',
    }),
    bytesServed: meter.createCounter(METRIC_NAMES.bytesServed, {
      description: 'Response bytes the data plane served to consumers.',
      unit: 'By',
    }),
    rowsWithheld: meter.createCounter(METRIC_NAMES.rowsWithheld, {
      description:
        'Table rows an S2SP result kept out of the model (filtered out or on later pages).',
    }),
    columnsWithheld: meter.createCounter(METRIC_NAMES.columnsWithheld, {
      description: 'Body columns S2SP results kept out of the model, summed over results.',
    }),
    tokensSaved: meter.createCounter(METRIC_NAMES.tokensSaved, {
      description:
        'Model tokens S2SP results saved, estimated against the plain result (may be negative for tiny tables).',
    }),
    storeEntries: meter.createObservableGauge(METRIC_NAMES.storeEntries, {
      description: 'Live entries in the body store.',
    }),
    storeBytes: meter.createObservableGauge(METRIC_NAMES.storeBytes, {
      description: 'Bytes of live entries in the body store.',
      unit: 'By',
    }),
  };
  cached = { provider, instruments: made };
  return made;
}

/** Counts one data-plane request and, when served, its bytes. */
export function recordRedemption(outcome: string, bytes: number): void {
  const found = instruments();
  if (!found) return;
  found.redemptions.add(1, { 's2sp.outcome': outcome });
  if (bytes > 0) found.bytesServed.add(bytes);
}

/** Counts what one S2SP result kept from the model. */
export function recordReceipt(receipt: S2SPReceipt, tool: string): void {
  const found = instruments();
  if (!found) return;
  const attributes = { 'gen_ai.tool.name': tool };
  found.rowsWithheld.add(receipt.rows_withheld, attributes);
  found.columnsWithheld.add(receipt.columns_withheld, attributes);
  found.tokensSaved.add(receipt.tokens_saved, attributes);
}

/**
 * Reports a store's entries and bytes (from `stats()`) at each metric collection, once
 * `@opentelemetry/api` has loaded.
 *
 * @returns stops reporting (call it when the store closes)
 */
export function observeStore(store: BodyStore): () => void {
  let stop: (() => void) | undefined;
  let stopped = false;
  void loadOtel().then(() => {
    const found = instruments();
    const api = otelIfLoaded();
    if (!found || !api || stopped) return;
    const meter = api.metrics.getMeter(INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION);
    const observe = async (result: import('@opentelemetry/api').BatchObservableResult) => {
      const stats = await store.stats().catch(() => undefined);
      if (!stats) return;
      result.observe(found.storeEntries, stats.entries);
      result.observe(found.storeBytes, stats.bytes);
    };
    meter.addBatchObservableCallback(observe, [found.storeEntries, found.storeBytes]);
    stop = () =>
      meter.removeBatchObservableCallback(observe, [found.storeEntries, found.storeBytes]);
  });
  return () => {
    stopped = true;
    stop?.();
  };
}
