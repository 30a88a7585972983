import { createS2SPProxy, type S2SPProxyOptions } from '@s2sp/proxy';
import { silentLogger } from '@s2sp/server';

/** A started and listening `s2sp-proxy`; `await using` closes it. */
export interface QuietProxy extends AsyncDisposable {
  readonly proxy: ReturnType<typeof createS2SPProxy>;
  readonly listener: Awaited<ReturnType<ReturnType<typeof createS2SPProxy>['listen']>>;
}

/**
 * Starts the proxy in this process, logging nothing (a figure's run must not drown in the
 * proxy's or the upstream's output), listening on `host` port 0.
 *
 * @param options - the upstream and any option under test
 * @param host - the address to bind; default 127.0.0.1
 */
export async function startQuietProxy(
  options: Partial<S2SPProxyOptions> & Pick<S2SPProxyOptions, 'upstream'>,
  host = '127.0.0.1',
): Promise<QuietProxy> {
  const proxy = createS2SPProxy({ logger: silentLogger, onUpstreamStderr: () => {}, ...options });
  try {
    await proxy.start();
    const listener = await proxy.listen({ host });
    return { proxy, listener, [Symbol.asyncDispose]: () => proxy.close() };
  } catch (error) {
    await proxy.close();
    throw error;
  }
}
