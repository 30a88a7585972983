/**
 * Shared setup of the proxy's integration tests: a proxy on a loopback port in front of a real
 * upstream, and official MCP SDK clients connected to it or directly to the upstream.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createConsoleLogger } from '@s2sp/server';
import {
  createS2SPProxy,
  type ProxyListener,
  type S2SPProxy,
  type S2SPProxyOptions,
} from '../src/index.js';
import type { StdioUpstream } from '../src/upstream/upstream-target.js';

/** The fixture upstream (test/fixtures/table-server.mjs). */
export const TABLE_SERVER: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/table-server.mjs', import.meta.url))],
};

/** The hostile fixture upstream (test/fixtures/hostile-server.mjs): slow tables, forged `_meta`, sprayed progress. */
export const HOSTILE_SERVER: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url))],
};

const require = createRequire(import.meta.url);
/** The entry script of an upstream server installed as a devDependency. */
export function upstreamBin(pkg: string, bin: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  return join(dirname(manifest), bin);
}

/**
 * A fixture server (`test/fixtures/*.mjs`) on Streamable HTTP in a child process of its own: run
 * with `--http`, it prints `port <n>` once it listens on 127.0.0.1.
 *
 * @param script - the fixture's path
 */
export async function httpFixture(script: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [script, '--http'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const found = /port (\d+)/.exec(chunk.toString());
      if (found) resolve(Number(found[1]));
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** The built CLI, for stdio-downstream and exit-code tests. */
export function cliPath(): string {
  const path = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  if (!existsSync(path))
    throw new Error('packages/proxy/dist is missing: run `pnpm build` first (pnpm test does).');
  return path;
}

/** The CLI running in its own process, once it says it is ready. */
export interface RunningCli {
  readonly mcpUrl: string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts the built CLI in front of `upstream` on port 0 with `args` and `env` added, and waits
 * for its `ready` line.
 */
export async function startCli(
  upstream: StdioUpstream,
  options: { args?: readonly string[]; env?: Record<string, string> } = {},
): Promise<RunningCli> {
  const child = spawn(
    process.execPath,
    [
      cliPath(),
      '--port',
      '0',
      ...(options.args ?? []),
      '--',
      upstream.command,
      ...(upstream.args ?? []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...options.env } },
  );
  let stderr = '';
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const ready = /ready mcp=(\S+)/.exec(stderr);
      if (ready?.[1]) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`s2sp-proxy exited ${code}: ${stderr}`)));
  });
  return {
    mcpUrl,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export interface RunningProxy extends AsyncDisposable {
  readonly proxy: S2SPProxy;
  readonly listener: ProxyListener;
  /** Log lines and upstream standard error, for assertions on restarts. */
  readonly logs: string[];
}

/** Starts a proxy in front of `upstream` and listens on 127.0.0.1 port 0. */
export async function startProxy(
  options: Partial<S2SPProxyOptions> & Pick<S2SPProxyOptions, 'upstream'>,
): Promise<RunningProxy> {
  const logs: string[] = [];
  const proxy = createS2SPProxy({
    logger: createConsoleLogger({ level: 'debug', write: (line) => logs.push(line) }),
    onUpstreamStderr: (chunk) => logs.push(chunk),
    ...options,
  });
  try {
    await proxy.start();
    const listener = await proxy.listen();
    return { proxy, listener, logs, [Symbol.asyncDispose]: () => proxy.close() };
  } catch (error) {
    await proxy.close();
    throw error;
  }
}

/**
 * A proxy in front of a fixture server (`test/fixtures/*.mjs`): run on stdio by the proxy, or on
 * Streamable HTTP in a process of its own. Disposing it closes the proxy and stops the fixture.
 *
 * @param script - the fixture's path
 * @param kind - how the proxy reaches it
 * @param options - more proxy options
 */
export async function startProxyBefore(
  script: string,
  kind: 'stdio' | 'http',
  options: Partial<S2SPProxyOptions> = {},
): Promise<RunningProxy> {
  let upstream: S2SPProxyOptions['upstream'] = {
    kind: 'stdio',
    command: process.execPath,
    args: [script],
  };
  let child: ChildProcess | undefined;
  if (kind === 'http') {
    const started = await httpFixture(script);
    child = started.child;
    upstream = { kind: 'http', url: started.url };
  }
  try {
    const running = await startProxy({ ...options, upstream });
    return {
      ...running,
      async [Symbol.asyncDispose]() {
        await running.proxy.close();
        child?.kill();
      },
    };
  } catch (error) {
    child?.kill();
    throw error;
  }
}

/** An SDK client; `close()` or `await using`. */
export interface TestClient extends AsyncDisposable {
  readonly client: Client;
}

function disposable(client: Client): TestClient {
  return { client, [Symbol.asyncDispose]: () => client.close() };
}

/** An SDK client on the proxy's Streamable HTTP endpoint. */
export async function httpClient(mcpUrl: string): Promise<TestClient> {
  const client = new Client({ name: 'proxy-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return disposable(client);
}

/** An SDK client that starts `upstream` itself (the "directly" side of a comparison). */
export async function stdioClient(
  upstream: StdioUpstream,
  env?: Record<string, string>,
): Promise<TestClient> {
  const client = new Client({ name: 'proxy-test-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: upstream.command,
      args: [...(upstream.args ?? [])],
      stderr: 'pipe',
      ...(env && { env }),
    }),
  );
  return disposable(client);
}
