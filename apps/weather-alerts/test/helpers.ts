/**
 * Shared pieces of this app's integration tests: the recorded fixtures read straight from disk
 * (independently of the replay server's own loader) and the rows the tools must return for them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const fixturesDir = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const distMain = fileURLToPath(new URL('../dist/main.js', import.meta.url));
export const distReplayMain = fileURLToPath(new URL('../dist/replay-main.js', import.meta.url));

/** Throws a helpful error when the app has not been built (the e2e tests run `dist`). */
export function assertBuilt(): void {
  if (!existsSync(distMain) || !existsSync(distReplayMain)) {
    throw new Error(
      'apps/weather-alerts/dist is missing: run `pnpm --filter @s2sp/app-weather-alerts build` first (pnpm test does).',
    );
  }
}

/** A fixture file's text, as recorded. */
export function fixtureText(file: string): string {
  return readFileSync(join(fixturesDir, file), 'utf8');
}

type Json = Record<string, unknown>;

/** A fixture parsed after the replay's link rewrite to `base`. */
export function fixtureJson(file: string, base: string): Json {
  return JSON.parse(fixtureText(file).replaceAll('https://api.weather.gov', base)) as Json;
}

/** Features of an alert fixture, links rewritten to `base`. */
export function fixtureFeatures(file: string, base: string): { properties: Json }[] {
  return fixtureJson(file, base).features as { properties: Json }[];
}

/** properties minus the JSON-LD `@` keys: what the Python reference returns as a row. */
export function withoutJsonLd(properties: Json): Json {
  const row: Json = {};
  for (const [key, value] of Object.entries(properties)) if (!key.startsWith('@')) row[key] = value;
  return row;
}

/**
 * The rows `get_alerts(area="TX")` must return from the replay: every alert in both Texas
 * recordings (each one has a TXZ or TXC code; the CA recording has none), newest recording first.
 */
export function expectedTexasRows(base: string): Json[] {
  const newest = fixtureFeatures('alerts-active-TX-2026-09-13.json', base);
  const older = fixtureFeatures('alerts-active-TX-2026-08-08.json', base);
  expectLength(newest, 12);
  expectLength(older, 7);
  return [...newest, ...older].map((feature) => withoutJsonLd(feature.properties));
}

/** The 14 recorded forecast periods, links rewritten to `base`. */
export function expectedForecastRows(base: string): Json[] {
  const forecast = fixtureJson('forecast-EWX-156_91-2026-09-13.json', base);
  return (forecast.properties as { periods: Json[] }).periods;
}

function expectLength(list: unknown[], length: number): void {
  if (list.length !== length) throw new Error(`fixture has ${list.length} features, not ${length}`);
}

/** A child process whose standard error is collected. */
export interface RunningChild {
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves with the first match of `pattern` in standard error; rejects if the child exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (sends SIGTERM first unless the child already exited). */
  stop(): Promise<number | null>;
  /** Resolves with the exit code once the child exits by itself. */
  exited(): Promise<number | null>;
}

/** Starts `node script args` with `env`, collecting standard error. */
export function startNode(script: string, args: string[], env: NodeJS.ProcessEnv): RunningChild {
  const child = spawn(process.execPath, [script, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
  });
  return {
    child,
    stderr: () => stderr,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = stderr.match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          }
        };
        const onExit = (code: number | null) => {
          cleanup();
          reject(new Error(`process exited (${code}) before printing ${pattern}:\n${stderr}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${stderr}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          child.stderr?.off('data', check);
          child.off('exit', onExit);
        };
        child.stderr?.on('data', check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exit;
    },
    exited: () => exit,
  };
}

/** Environment for a child: the parent's, minus anything that would change the app's behaviour. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(NWS_|S2SP_|REDIS_URL$|PORT$|HOST$|LOG_LEVEL$)/.test(name)) delete env[name];
  }
  return { ...env, ...extra };
}
