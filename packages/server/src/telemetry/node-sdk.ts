/** A started OpenTelemetry Node SDK (see {@link startTelemetryFromEnv}). */
export interface StartedTelemetry {
  /** Flushes and stops the SDK; never throws (a collector that went away must not fail a stop). */
  shutdown(): Promise<void>;
}

/** Options for {@link startTelemetryFromEnv}. */
export interface StartTelemetryOptions {
  /** `service.name` of the spans and metrics, unless `OTEL_SERVICE_NAME` says otherwise. */
  readonly serviceName: string;
  /** Where the `OTEL_*` variables are read. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The one way an S2SP program turns OpenTelemetry on (the apps' `main`): when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set, it starts `@opentelemetry/sdk-node`'s `NodeSDK`, which
 * configures its OTLP exporters from the standard `OTEL_*` variables and registers the global
 * providers that S2SP's spans and metrics use. Without the variable nothing is loaded. A library
 * never calls this: an application that already runs the SDK keeps its own.
 *
 * `@opentelemetry/sdk-node` is an optional peer dependency: install it where you call this.
 *
 * @returns the SDK, to shut down after the server, or `undefined` when tracing is off
 * @throws Error naming the package to install when the variable is set and the SDK is missing
 * @example
 * ```ts
 * const telemetry = await startTelemetryFromEnv({ serviceName: 'weather-alerts' });
 * stopOnSignals(async () => {
 *   await server.shutdown();
 *   await telemetry?.shutdown();
 * });
 * ```
 */
export async function startTelemetryFromEnv(
  options: StartTelemetryOptions,
): Promise<StartedTelemetry | undefined> {
  const env = options.env ?? process.env;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return undefined;
  let sdkModule: typeof import('@opentelemetry/sdk-node');
  try {
    sdkModule = await import('@opentelemetry/sdk-node');
  } catch (cause) {
    throw new Error(
      'OTEL_EXPORTER_OTLP_ENDPOINT is set, but @opentelemetry/sdk-node is not installed: install it (npm install @opentelemetry/sdk-node) or unset the variable.',
      { cause },
    );
  }
  const sdk = new sdkModule.NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || options.serviceName,
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown().catch(() => undefined) };
}
