/**
 * The stdio upstream's child process, started in a process group of its own so that the proxy
 * can stop all of it. A server started through `npx` (or a shell script) is several processes:
 * `npx`, then the server it runs. Signalling only the direct child (as the SDK's stdio transport
 * does) leaves the server running after the proxy has given up on it or exited; signalling the
 * group stops them all.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage, Transport } from '../mcp-sdk.js';
import type { BoundedLineBuffer } from './result-cap.js';

/** How to start the child. */
export interface StdioChildParameters {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

// How long a child is given to exit once its input is closed, then once it is sent SIGTERM.
const GRACE_MS = 2_000;

// Windows has no process groups to signal; there the direct child is stopped as the SDK does.
const GROUPS = process.platform !== 'win32';

/**
 * An MCP stdio client transport whose child runs in its own process group (`detached`), and
 * whose `close()` stops the whole group: standard input closed, then SIGTERM, then SIGKILL, each
 * after a grace period while any process of the group is left.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The child's standard error, readable before `start()`. */
  readonly stderr = new PassThrough();
  readonly #parameters: StdioChildParameters;
  readonly #lines: BoundedLineBuffer;
  #child: ChildProcess | undefined;
  #closing: Promise<void> | undefined;

  /**
   * @param parameters - the command, its arguments, environment and directory
   * @param lines - the read buffer (one message per line, capped)
   */
  constructor(parameters: StdioChildParameters, lines: BoundedLineBuffer) {
    this.#parameters = parameters;
    this.#lines = lines;
  }

  /** The child's process id (its group's id too), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the child; resolves once it is running. */
  start(): Promise<void> {
    if (this.#child) throw new Error('GroupStdioTransport already started.');
    return new Promise((resolve, reject) => {
      const child = spawn(this.#parameters.command, [...this.#parameters.args], {
        env: { ...this.#parameters.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        detached: GROUPS,
        windowsHide: true,
        ...(this.#parameters.cwd !== undefined && { cwd: this.#parameters.cwd }),
      });
      this.#child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        if (this.#child === child) this.#child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        this.#lines.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.#lines.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr?.pipe(this.stderr);
    });
  }

  /** Writes one message as a line on the child's standard input. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Stops the child and every process of its group. Every call waits for the same stop (the SDK
   * closes its transport itself when initialisation fails, without waiting).
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const child = this.#child;
      this.#child = undefined;
      if (child) await stopGroup(child);
      this.#lines.clear();
    })();
    return this.#closing;
  }
}

/** Whether any process of the child's group (else the child itself) is still running. */
function running(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  if (!GROUPS) return child.exitCode === null && child.signalCode === null;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (GROUPS && child.pid !== undefined) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // Already gone.
  }
}

/** Waits until nothing of the child's group runs, or `ms` passes; true when nothing runs. */
async function gone(child: ChildProcess, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (running(child)) {
    if (Date.now() >= until) return false;
    // Not unref'd: a proxy exiting after it gives up waits for the group to stop.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Stops a child started by {@link GroupStdioTransport}: its input closed (a stdio MCP server
 * exits on end of input), then its group sent SIGTERM, then SIGKILL.
 *
 * @param child - the child process, group leader of its group
 */
async function stopGroup(child: ChildProcess): Promise<void> {
  try {
    child.stdin?.end();
  } catch {
    // Its input is already closed.
  }
  if (await gone(child, GRACE_MS)) return;
  signal(child, 'SIGTERM');
  if (await gone(child, GRACE_MS)) return;
  signal(child, 'SIGKILL');
}
