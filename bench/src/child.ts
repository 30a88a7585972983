import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A benchmark helper running in its own OS process, driven over IPC. */
export interface ChildHandle {
  /** The process id, for the report. */
  readonly pid: number;
  /** Sends a request and waits for its answer (or the child's error). */
  call<T>(message: Record<string, unknown>): Promise<T>;
  /** Stops the child (SIGTERM) and waits until it is gone. */
  close(): Promise<void>;
}

interface Reply {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

/**
 * Forks `dist/<entry>.js` (built next to run.js) with IPC, waits for its `{ ready }` message and
 * returns a handle. The child answers each `{ id, …request }` with `{ id, ok, value | error }`.
 *
 * @param entry - the built entry's name, such as `server-process`
 * @param args - its command-line arguments
 * @param execArgv - node options, such as `--expose-gc`
 */
export async function startChild(
  entry: string,
  args: readonly string[] = [],
  execArgv: readonly string[] = [],
): Promise<ChildHandle> {
  const file = fileURLToPath(new URL(`./${entry}.js`, import.meta.url));
  const child: ChildProcess = fork(file, [...args], {
    execArgv: [...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      for (const { reject } of pending.values())
        reject(new Error(`${entry} exited (${code ?? signal}) before answering`));
      pending.clear();
      resolve();
    });
  });
  child.on('message', (message: Reply | { ready: true }) => {
    if ('ready' in message) return;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(new Error(`${entry}: ${message.error}`));
  });
  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'ready' in message) {
        child.off('message', onMessage);
        resolve();
      }
    };
    child.on('message', onMessage);
    child.once('exit', () => reject(new Error(`${entry} exited before it was ready`)));
  });
  return {
    pid: child.pid ?? -1,
    call<T>(message: Record<string, unknown>) {
      if (exited) return Promise.reject(new Error(`${entry} has exited`));
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ ...message, id });
      });
    },
    async close() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}

/**
 * The child's side: announces readiness and answers requests with `handle`. Errors are sent back
 * as messages; the process stays up until its parent stops it or goes away.
 */
export function serveParent(handle: (message: Record<string, unknown>) => Promise<unknown>): void {
  const send = (message: unknown) => process.send?.(message);
  process.on('message', (message: Record<string, unknown>) => {
    const id = message.id as number;
    handle(message).then(
      (value) => send({ id, ok: true, value }),
      (error: unknown) =>
        send({ id, ok: false, error: error instanceof Error ? error.stack : String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}
