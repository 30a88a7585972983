import { describe, expect, it } from 'vitest';
import type { ClientCapabilities, Request } from '../mcp-sdk.js';
import { GATEWAY_PARTS } from '../tables/s2sp-call.js';
import {
  createClientRelay,
  MAX_RELAYED_PER_CLIENT,
  RELAY_ERROR,
  type RelayTarget,
} from './client-relay.js';

const SAMPLE: Request = {
  method: 'sampling/createMessage',
  params: { messages: [], maxTokens: 1 },
};

/** A client that answers with what it was sent, once `gate` opens. */
function target(
  capabilities: ClientCapabilities | undefined,
  gate: Promise<void> = Promise.resolve(),
): RelayTarget & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    client: 'c1',
    signals,
    capabilities: () => capabilities,
    async send(request, { signal }) {
      signals.push(signal);
      await Promise.race([
        gate,
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      ]);
      return { echoed: request.method };
    },
  };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: number; data?: unknown }) => ({ code: error.code, data: error.data }),
  );

describe('createClientRelay', () => {
  const relay = createClientRelay({
    timeoutMs: 5_000,
    createClientLimit: GATEWAY_PARTS.createClientConcurrencyLimit,
  });
  const live = new AbortController().signal;

  it('relays to a client that declared the capability, with its answer', async () => {
    await expect(relay(SAMPLE, target({ sampling: {} }), live)).resolves.toEqual({
      echoed: 'sampling/createMessage',
    });
    await expect(
      relay({ method: 'roots/list' }, target({ roots: { listChanged: true } }), live),
    ).resolves.toEqual({ echoed: 'roots/list' });
  });

  it('refuses with -32021 and the missing capability when the client did not declare it', async () => {
    expect(await codeOf(relay(SAMPLE, target({ elicitation: {} }), live))).toEqual({
      code: RELAY_ERROR.missingCapability,
      data: { requiredCapabilities: { sampling: {} } },
    });
    expect(await codeOf(relay({ method: 'roots/list' }, target(undefined), live))).toEqual({
      code: RELAY_ERROR.missingCapability,
      data: { requiredCapabilities: { roots: {} } },
    });
  });

  it('tells elicitation modes apart: `elicitation: {}` is form mode only', async () => {
    const url: Request = {
      method: 'elicitation/create',
      params: { mode: 'url', message: 'm', url: 'https://x.example', elicitationId: 'e' },
    };
    const form: Request = { method: 'elicitation/create', params: { message: 'm' } };
    await expect(relay(form, target({ elicitation: {} }), live)).resolves.toBeDefined();
    expect(await codeOf(relay(url, target({ elicitation: {} }), live))).toEqual({
      code: RELAY_ERROR.missingCapability,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
    await expect(relay(url, target({ elicitation: { url: {} } }), live)).resolves.toBeDefined();
    expect(await codeOf(relay(form, target({ elicitation: { url: {} } }), live))).toEqual({
      code: RELAY_ERROR.missingCapability,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });

  it('refuses what it cannot attribute, and methods it does not relay', async () => {
    expect(await codeOf(relay(SAMPLE, undefined, live))).toEqual({
      code: RELAY_ERROR.invalidRequest,
      data: undefined,
    });
    expect(await codeOf(relay({ method: 'tasks/list' }, target({ sampling: {} }), live))).toEqual({
      code: RELAY_ERROR.methodNotFound,
      data: undefined,
    });
  });

  it('caps the requests relayed to one client at once', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const busy = target({ sampling: {} }, gate);
    const running = Array.from({ length: 2 * MAX_RELAYED_PER_CLIENT }, () =>
      relay(SAMPLE, busy, live),
    );
    expect(await codeOf(relay(SAMPLE, busy, live))).toEqual({
      code: RELAY_ERROR.busy,
      data: undefined,
    });
    // Another client has its own slots.
    await expect(
      relay(SAMPLE, { ...target({ sampling: {} }), client: 'c2' }, live),
    ).resolves.toBeDefined();
    open();
    await expect(Promise.all(running)).resolves.toHaveLength(2 * MAX_RELAYED_PER_CLIENT);
  });

  it('gives up on a client that does not answer in time, and tells it to stop', async () => {
    const quick = createClientRelay({
      timeoutMs: 50,
      createClientLimit: GATEWAY_PARTS.createClientConcurrencyLimit,
    });
    const silent = target({ sampling: {} }, new Promise(() => {}));
    expect(await codeOf(quick(SAMPLE, silent, live))).toEqual({
      code: RELAY_ERROR.timeout,
      data: undefined,
    });
    expect(silent.signals[0]?.aborted).toBe(true);
  });

  it('passes the upstream’s cancellation on to the client', async () => {
    const controller = new AbortController();
    const silent = target({ sampling: {} }, new Promise(() => {}));
    const pending = relay(SAMPLE, silent, controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    expect(silent.signals[0]?.aborted).toBe(true);
  });
});
