import { once } from 'node:events';
import { createServer, connect as netConnect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { installLoopbackGuard, isLoopbackHost, type LoopbackGuard } from './loopback-guard.js';

describe('installLoopbackGuard', () => {
  let guard: LoopbackGuard | undefined;
  afterEach(() => guard?.uninstall());

  /** Whether the socket connected, or the error code it failed with. */
  const outcome = (socket: Socket) =>
    new Promise<{ event: 'connect' | 'error'; code?: string | undefined }>((resolve) => {
      socket.once('connect', () => {
        socket.destroy();
        resolve({ event: 'connect' });
      });
      socket.once('error', (error: NodeJS.ErrnoException) =>
        resolve({ event: 'error', code: error.code }),
      );
    });

  it('refuses a connection to another host before any packet, and records it', async () => {
    guard = installLoopbackGuard();
    // A documentation address (RFC 5737): were the guard to let it through, no answer would come.
    const refused = await outcome(netConnect({ host: '192.0.2.1', port: 80 }));
    expect(refused.event).toBe('error');
    expect(guard.refused).toEqual(['192.0.2.1']);
    const byArgs = await outcome(netConnect(443, 'example.com'));
    expect(byArgs.event).toBe('error');
    expect(guard.refused).toEqual(['192.0.2.1', 'example.com']);
  });

  it('lets loopback through, and uninstalls', async () => {
    const server = createServer((socket) => socket.end());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      guard = installLoopbackGuard();
      expect(await outcome(netConnect({ host: '127.0.0.1', port }))).toEqual({
        event: 'connect',
      });
      expect(guard.refused).toEqual([]);
      guard.uninstall();
      // Uninstalled, the original connect runs: a refused port is the system's ECONNREFUSED.
      server.close();
      await once(server, 'close');
      expect(await outcome(netConnect({ host: '127.0.0.1', port }))).toEqual({
        event: 'error',
        code: 'ECONNREFUSED',
      });
      expect(guard.refused).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('knows the loopback names and addresses', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['169.254.169.254', '10.0.0.1', 'localhost.example', '::', '128.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
