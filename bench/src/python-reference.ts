import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * The Python reference (`mcp-sd/python-sdk`) is not part of this repository and not installed in
 * CI: the benchmark runs it only when its `direct_channel.py` is found and Debian's Python has
 * what it imports. `S2SP_PY_REFERENCE` names the file (default: the source tree extracted to
 * `/tmp/mcp-sd-python-sdk`); `S2SP_PY` the interpreter (default `/usr/bin/python3`, with the
 * `python3-starlette python3-uvicorn python3-httpx` packages).
 */
export const PYTHON_REFERENCE = {
  file: process.env.S2SP_PY_REFERENCE ?? '/tmp/mcp-sd-python-sdk/src/mcp_sd/direct_channel.py',
  python: process.env.S2SP_PY ?? '/usr/bin/python3',
};

/** Why the Python reference cannot run here, or `undefined` when it can. */
export function pythonReferenceMissing(): string | undefined {
  if (!existsSync(PYTHON_REFERENCE.file))
    return `the Python reference's direct_channel.py was not found at ${PYTHON_REFERENCE.file} (extract mcp-sd/python-sdk there, or set S2SP_PY_REFERENCE)`;
  try {
    execFileSync(PYTHON_REFERENCE.python, ['-c', 'import starlette, uvicorn, httpx'], {
      stdio: 'ignore',
    });
    return undefined;
  } catch {
    return `${PYTHON_REFERENCE.python} cannot import starlette, uvicorn and httpx (apt-get install python3-starlette python3-uvicorn python3-httpx, or set S2SP_PY)`;
  }
}

/** The reference's data plane in a Python process, driven one JSON line at a time. */
export interface PythonReference {
  readonly port: number;
  call<T>(command: Record<string, unknown>): Promise<T>;
  close(): void;
}

/**
 * Starts `bench/python/reference_server.py` over the reference's own `DirectChannel`. With
 * `freshRows`, each minted token gets rows of its own, as each call's result has in real use
 * (see the script); otherwise every token shares one list of rows, as the earlier runs measured it.
 */
export async function startPythonReference(
  options: { readonly freshRows?: boolean } = {},
): Promise<PythonReference> {
  const script = fileURLToPath(new URL('../python/reference_server.py', import.meta.url));
  const child = spawn(PYTHON_REFERENCE.python, [script, PYTHON_REFERENCE.file], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, S2SP_PY_FRESH_ROWS: options.freshRows ? '1' : '0' },
  });
  const lines = createInterface({ input: child.stdout });
  // One exit listener for every pending answer (one per call would pile up over a run).
  const waiting: { resolve(line: string): void; reject(error: Error): void }[] = [];
  lines.on('line', (line) => waiting.shift()?.resolve(line));
  let exited: Error | undefined;
  child.once('exit', (code) => {
    exited = new Error(`the Python reference exited (${code})`);
    for (const pending of waiting.splice(0)) pending.reject(exited);
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (exited) return reject(exited);
      waiting.push({
        resolve: (line) => resolve(JSON.parse(line) as Record<string, unknown>),
        reject,
      });
    });
  const first = await next();
  return {
    port: first.port as number,
    async call<T>(command: Record<string, unknown>) {
      const answer = next();
      child.stdin.write(`${JSON.stringify(command)}\n`);
      const reply = await answer;
      if (reply.ok !== true) throw new Error(`the Python reference: ${String(reply.error)}`);
      return reply.value as T;
    },
    close: () => {
      // End of input ends its command loop; uvicorn's own SIGTERM handler waits for that
      // loop's blocked read, so a signal alone can leave it (and this run) hanging.
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      timer.unref();
      child.once('exit', () => clearTimeout(timer));
    },
  };
}
