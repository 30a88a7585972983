/**
 * Keeps these tests on loopback: any TCP connection this process tries to open to another host
 * (a framework's telemetry, say) is refused and recorded, and the test that caused it fails.
 */
import net from 'node:net';
import { afterEach, expect } from 'vitest';

const refused: string[] = [];

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

type Connect = (this: net.Socket, ...args: unknown[]) => net.Socket;
const connect = net.Socket.prototype.connect as unknown as Connect;
(net.Socket.prototype as unknown as { connect: Connect }).connect = function (...args) {
  const [first, second] = args;
  let host: string | undefined;
  if (typeof first === 'object' && first !== null && !Array.isArray(first)) {
    const options = first as { path?: string; host?: string };
    if (!options.path) host = options.host ?? 'localhost';
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    host = typeof second === 'string' ? second : 'localhost';
  }
  if (host !== undefined && !isLoopback(host)) {
    refused.push(host);
    process.nextTick(() => this.destroy(new Error(`loopback-only test: refused ${host}`)));
    return this;
  }
  return connect.apply(this, args);
};

afterEach(() => {
  const hosts = refused.splice(0);
  expect(hosts, 'connections to non-loopback hosts').toEqual([]);
});
