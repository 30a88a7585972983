import { describe, expect, it } from 'vitest';
import { startTelemetryFromEnv } from './node-sdk.js';

describe('startTelemetryFromEnv', () => {
  it('loads nothing without OTEL_EXPORTER_OTLP_ENDPOINT (a blank value counts as unset)', async () => {
    expect(await startTelemetryFromEnv({ serviceName: 'x', env: {} })).toBeUndefined();
    expect(
      await startTelemetryFromEnv({ serviceName: 'x', env: { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' } }),
    ).toBeUndefined();
  });

  it('starts the Node SDK when the endpoint is set, and its shutdown resolves', async () => {
    const telemetry = await startTelemetryFromEnv({
      serviceName: 'node-sdk-test',
      // Nothing listens there: the exporters only fail when they send, and shutdown swallows it.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SERVICE_NAME: 'named' },
    });
    expect(typeof telemetry?.shutdown).toBe('function');
    await expect(telemetry?.shutdown()).resolves.toBeUndefined();
  });
});
