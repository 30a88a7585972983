/**
 * A tripwire for the rule that a test suite sends traffic to 127.0.0.1 (and ::1) only. It wraps
 * `net.Socket.prototype.connect`, which every TCP client in Node goes through (fetch/undici,
 * node:http, node-redis), and refuses — before any DNS lookup or packet — a connection to any
 * other host. The reliability suite's SSRF figures are only trustworthy if a validation bug could
 * not have sent a request to 169.254.169.254 for real, and the agent frameworks' tests must not
 * reach a vendor's telemetry: this makes either a recorded, failed attempt instead.
 * `loopback-only.ts` is the set-up file that installs it for a vitest project.
 */
import net from 'node:net';

/** What the guard saw. */
export interface LoopbackGuard {
  /** Hosts a connection was attempted to and refused, in order. */
  readonly refused: string[];
  /** Restores the original `connect`. */
  uninstall(): void;
}

/** True for hosts that can only mean this machine's loopback interface. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(bare) ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(bare)
  );
}

interface ConnectOptions {
  readonly host?: string;
  readonly path?: string;
}

/** The destination host of a `connect(...)` call, or undefined for a Unix socket or pipe. */
function destination(args: unknown[]): string | undefined {
  // net.connect() passes its normalised arguments as one array: [options, listener].
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as ConnectOptions;
    if (options.path !== undefined) return undefined;
    return options.host ?? 'localhost';
  }
  if (typeof first === 'string' && Number.isNaN(Number(first))) return undefined; // a path
  return typeof args[1] === 'string' ? args[1] : 'localhost';
}

/**
 * Installs the guard for this process (each vitest worker runs its own).
 *
 * @returns the record of refused attempts and a way to uninstall
 */
export function installLoopbackGuard(): LoopbackGuard {
  const refused: string[] = [];
  const original = net.Socket.prototype.connect;
  // biome-ignore lint/suspicious/noExplicitAny: connect has six overloads; the wrapper forwards all of them.
  const guarded = function (this: net.Socket, ...args: any[]) {
    const host = destination(args);
    if (host !== undefined && !isLoopbackHost(host)) {
      refused.push(host);
      process.nextTick(() =>
        this.destroy(
          new Error(`loopback guard: refused a connection to ${host} (tests use 127.0.0.1 only)`),
        ),
      );
      return this;
    }
    return original.apply(this, args as Parameters<typeof original>);
  };
  net.Socket.prototype.connect = guarded as typeof original;
  return {
    refused,
    uninstall() {
      net.Socket.prototype.connect = original;
    },
  };
}
