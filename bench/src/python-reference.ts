import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { withMedianCostToken } from '@s2sp/test-utils';
import type { ReferenceCall } from './token-inputs.js';

/**
 * The Python reference (`mcp-sd/python-sdk`) is not part of this repository and not installed in
 * CI: the benchmark runs it only when its `direct_channel.py` (data plane; `server.py` beside it
 * for the control plane) is found and Debian's Python has what it imports. Section 1 falls back
 * to the committed recording of its control-plane answers when it is not here. `S2SP_PY_REFERENCE` names the file (default: the source tree extracted to
 * `/tmp/mcp-sd-python-sdk`); `S2SP_PY` the interpreter (default `/usr/bin/python3`, with the
 * `python3-starlette python3-uvicorn python3-httpx` packages).
 */
export const PYTHON_REFERENCE = {
  file: process.env.S2SP_PY_REFERENCE ?? '/tmp/mcp-sd-python-sdk/src/mcp_sd/direct_channel.py',
  python: process.env.S2SP_PY ?? '/usr/bin/python3',
};

/** The reference's `server.py` (its control plane), beside `direct_channel.py`. */
const referenceServerFile = () => join(dirname(PYTHON_REFERENCE.file), 'server.py');

/**
 * Why the Python reference cannot run here, or `undefined` when it can. The data plane needs its
 * `direct_channel.py`; the control plane (`part: 'control plane'`) its `server.py` too.
 */
export function pythonReferenceMissing(
  part: 'data plane' | 'control plane' = 'data plane',
): string | undefined {
  if (!existsSync(PYTHON_REFERENCE.file))
    return `the Python reference's direct_channel.py was not found at ${PYTHON_REFERENCE.file} (extract mcp-sd/python-sdk there, or set S2SP_PY_REFERENCE)`;
  if (part === 'control plane' && !existsSync(referenceServerFile()))
    return `the Python reference's server.py was not found beside ${PYTHON_REFERENCE.file}`;
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

/**
 * The port the control-plane answers name in their `resource_url` (the reference's data plane is
 * not started for them): the same `http://127.0.0.1:3001` as our responses in section 1, so the
 * two URLs differ only by what each implementation puts in them.
 */
export const REFERENCE_PUBLIC_PORT = 3001;

/** What the reference's control plane answered for a list of calls. */
export interface ReferenceAnswers {
  /** The tool as the reference registers it: name, description and added parameters. */
  readonly tool: {
    readonly name: string;
    readonly description: string;
    readonly parameters: readonly { name: string; default: unknown }[];
  };
  /** The result text of each call, in order, its resource_url token fixed (see below). */
  readonly texts: readonly string[];
  /** Whether `mcp.server.fastmcp` was the script's stand-in (the `mcp` SDK is not installed). */
  readonly shim: boolean;
  /** The Python version that ran it. */
  readonly python: string;
}

/**
 * Runs the reference's own resource tool (`S2SPServer.sd_resource_tool`, through
 * `bench/python/reference_control_plane.py`) on `calls` in one Python process and returns the
 * text each call's result carries. Each minted token is swapped for the median-cost one, as in
 * our responses ({@link withMedianCostToken}), so a count is the same on every run.
 */
export function runReferenceControlPlane(calls: readonly ReferenceCall[]): ReferenceAnswers {
  const script = fileURLToPath(new URL('../python/reference_control_plane.py', import.meta.url));
  const source = dirname(dirname(PYTHON_REFERENCE.file));
  const input = JSON.stringify({
    calls: calls.map((call) => ({
      rows: call.rows,
      abstract_domains: call.abstractDomains?.join(',') ?? null,
    })),
  });
  const output = execFileSync(
    PYTHON_REFERENCE.python,
    [script, source, String(REFERENCE_PUBLIC_PORT)],
    { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const answers = JSON.parse(output) as ReferenceAnswers;
  if (answers.texts.length !== calls.length)
    throw new Error(
      `the Python reference answered ${answers.texts.length} of ${calls.length} calls`,
    );
  return { ...answers, texts: answers.texts.map(withMedianCostToken) };
}

/** A call's identity in a recording: the SHA-256 of its rows and abstract columns. */
export function referenceCallKey(call: ReferenceCall): string {
  return createHash('sha256')
    .update(JSON.stringify([call.rows, call.abstractDomains]))
    .digest('hex');
}

/** The SHA-256 of each reference file the control-plane answers come from, by its path. */
export function referenceFileHashes(): Record<string, string> {
  const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
  return {
    'src/mcp_sd/server.py': hash(referenceServerFile()),
    'src/mcp_sd/direct_channel.py': hash(PYTHON_REFERENCE.file),
  };
}

/** The committed recording of the reference's control-plane answers (section 1's calls). */
export const REFERENCE_RECORDING_FILE = fileURLToPath(
  new URL('../fixtures/python-reference/control-plane.json', import.meta.url),
);

/** The command that writes {@link REFERENCE_RECORDING_FILE}, from the repository's root. */
export const REFERENCE_RECORDING_COMMAND =
  'pnpm --filter @s2sp/bench build && pnpm --filter @s2sp/bench record:python-reference';

/** The recording's form: its provenance, the tool, and one answer per call. */
export interface ReferenceRecording {
  readonly reference: {
    readonly repository: 'mcp-sd/python-sdk';
    readonly commit: string;
    readonly files: Record<string, string>;
    readonly python: string;
    readonly fastmcpShim: boolean;
  };
  readonly command: string;
  readonly resourceUrlPort: number;
  readonly tool: ReferenceAnswers['tool'];
  readonly calls: readonly {
    readonly label: string;
    readonly abstract_domains: string | null;
    readonly input: string;
    readonly text: string;
  }[];
}

/** The recording of `calls` as {@link REFERENCE_RECORDING_FILE} holds it. */
export function recordReferenceControlPlane(
  calls: readonly ReferenceCall[],
  commit: string,
): ReferenceRecording {
  const answers = runReferenceControlPlane(calls);
  return {
    reference: {
      repository: 'mcp-sd/python-sdk',
      commit,
      files: referenceFileHashes(),
      python: answers.python,
      fastmcpShim: answers.shim,
    },
    command: REFERENCE_RECORDING_COMMAND,
    resourceUrlPort: REFERENCE_PUBLIC_PORT,
    tool: answers.tool,
    calls: calls.map((call, i) => ({
      label: call.label,
      abstract_domains: call.abstractDomains?.join(',') ?? null,
      input: referenceCallKey(call),
      text: answers.texts[i] as string,
    })),
  };
}

/** The committed recording, parsed. */
export function readReferenceRecording(): ReferenceRecording {
  return JSON.parse(readFileSync(REFERENCE_RECORDING_FILE, 'utf8')) as ReferenceRecording;
}

/** The reference's answer to each call of section 1, and where the answers came from. */
export interface ReferenceTexts {
  /** How the answers were produced: a run here, or the committed recording (and why). */
  readonly how: string;
  /** The reference's text for `call`, or `undefined` when neither a run nor the recording has it. */
  text(call: ReferenceCall): string | undefined;
  /** Why a call has no text (said in the row instead of a figure). */
  readonly missing: string;
}

/**
 * The reference's answers to `calls`: run here when the reference is present (the same rule as
 * the data-plane rows), otherwise taken from the committed recording, which was produced by
 * running it ({@link REFERENCE_RECORDING_COMMAND}). A call neither covers has no text.
 */
export function referenceTexts(calls: readonly ReferenceCall[]): ReferenceTexts {
  const absent = pythonReferenceMissing('control plane');
  const byKey = new Map<string, string>();
  let how: string;
  if (!absent) {
    const answers = runReferenceControlPlane(calls);
    for (const [i, call] of calls.entries())
      byKey.set(referenceCallKey(call), answers.texts[i] as string);
    how = `run here: the reference's own S2SPServer.sd_resource_tool wrapper (Python ${answers.python}${answers.shim ? ', FastMCP stand-in for the missing mcp package' : ''}) via bench/python/reference_control_plane.py`;
  } else {
    const recording = existsSync(REFERENCE_RECORDING_FILE) ? readReferenceRecording() : undefined;
    for (const call of recording?.calls ?? []) byKey.set(call.input, call.text);
    how = recording
      ? `recorded: mcp-sd/python-sdk ${recording.reference.commit.slice(0, 12)} run by \`${recording.command}\` (not run here: ${absent})`
      : `not run here (${absent}) and no recording`;
  }
  return {
    how,
    text: (call) => byKey.get(referenceCallKey(call)),
    missing: absent
      ? `the reference is not here (${absent}) and bench/fixtures/python-reference/control-plane.json has no answer for these rows (re-record it: ${REFERENCE_RECORDING_COMMAND})`
      : 'the reference gave no answer',
  };
}
