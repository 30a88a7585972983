/**
 * The recorded tool lists of the matrix servers (`tool-lists.ts`). With `S2SP_RECORD_FIXTURES=1`
 * each server is started first and asked, over raw JSON-RPC on stdio (the tools exactly as sent),
 * for its `initialize` and `tools/list`: the PostgreSQL servers against a throwaway PostgreSQL
 * (dbhub connects at start), the MySQL servers against an address where nothing listens (they
 * list their tools without a connection), the SQLite servers on a new file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '@s2sp/test-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeBinary } from '../../../../scripts/node-binary.mjs';
import { upstreamBin } from '../support.js';
import { MATRIX } from './servers.js';
import { ensureSqlite3Binding } from './sqlite3-binding.js';
import { type RecordedToolList, recordedToolLists, TOOL_LISTS_FILE } from './tool-lists.js';

const require = createRequire(import.meta.url);
const NOWHERE = '127.0.0.1:9';

/** `initialize` and `tools/list` over stdio, as raw JSON-RPC lines, sent at once. */
async function listRaw(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ instructions?: string; tools: Record<string, unknown>[] }> {
  const child: ChildProcess = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const send = (message: object) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  try {
    return await new Promise((resolve, reject) => {
      let buffer = '';
      let instructions: string | undefined;
      const timer = setTimeout(
        () => reject(new Error(`${args[0]}: no tools/list in 60 s`)),
        60_000,
      );
      child.once('exit', (code) => reject(new Error(`${args[0]} exited (${code})`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
          const line = buffer.slice(0, end).trim();
          buffer = buffer.slice(end + 1);
          if (!line.startsWith('{')) continue;
          const message = JSON.parse(line) as { id?: number; result?: Record<string, unknown> };
          if (message.id === 1) {
            instructions = message.result?.instructions as string | undefined;
          } else if (message.id === 2) {
            clearTimeout(timer);
            const tools = (message.result?.tools ?? []) as Record<string, unknown>[];
            resolve({ ...(instructions && { instructions }), tools });
          }
        }
      });
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 's2sp-tool-lists', version: '1' },
        },
      });
      // Sent at once, not after the answer: the MySQL servers exit as soon as their connection
      // to the address where nothing listens fails.
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    });
  } finally {
    child.kill();
  }
}

async function record(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 's2sp-tool-lists-'));
  await using pg = await startPostgres();
  const dsn = new URL(pg.url);
  dsn.protocol = 'postgres:';
  dsn.searchParams.set('sslmode', 'disable');
  await ensureSqlite3Binding('mcp-server-sqlite-npx');
  await ensureSqlite3Binding('@executeautomation/database-server');
  const node = (pkg: string, bin: string, args: string[] = [], env?: Record<string, string>) =>
    listRaw(process.execPath, [upstreamBin(pkg, bin), ...args], env);
  const lists: Record<string, () => ReturnType<typeof listRaw>> = {
    '@modelcontextprotocol/server-postgres': () =>
      node('@modelcontextprotocol/server-postgres', 'dist/index.js', [pg.url]),
    '@zeddotdev/postgres-context-server': () =>
      node('@zeddotdev/postgres-context-server', 'index.mjs', [], { DATABASE_URL: pg.url }),
    'mcp-postgres-server': () =>
      node('mcp-postgres-server', 'build/index.js', [], { DATABASE_URL: pg.url }),
    '@henkey/postgres-mcp-server': () =>
      node('@henkey/postgres-mcp-server', 'build/index.js', ['--connection-string', pg.url]),
    '@bytebase/dbhub': () =>
      listRaw(
        nodeBinary(22),
        [upstreamBin('@bytebase/dbhub', 'dist/index.js'), '--transport', 'stdio'],
        { DSN: dsn.href },
      ),
    '@benborla29/mcp-server-mysql': () =>
      node('@benborla29/mcp-server-mysql', 'dist/index.js', [], {
        MYSQL_HOST: '127.0.0.1',
        MYSQL_PORT: '9',
        MYSQL_USER: 'nobody',
        MYSQL_PASS: 'none',
        MYSQL_DB: 'none',
      }),
    '@berthojoris/mcp-mysql-server': () =>
      node('@berthojoris/mcp-mysql-server', 'bin/mcp-mysql.js', [
        `mysql://nobody:none@${NOWHERE}/none`,
        'list,read,utility',
      ]),
    'mcp-server-sqlite-npx': () =>
      node('mcp-server-sqlite-npx', 'dist/index.js', [join(dir, 'sqlite.db')]),
    '@executeautomation/database-server': () =>
      node('@executeautomation/database-server', 'dist/src/index.js', [join(dir, 'csv.db')]),
    '@modelcontextprotocol/server-memory': () =>
      node('@modelcontextprotocol/server-memory', 'dist/index.js', [], {
        MEMORY_FILE_PATH: join(dir, 'memory.jsonl'),
      }),
    '@modelcontextprotocol/server-filesystem': () =>
      node('@modelcontextprotocol/server-filesystem', 'dist/index.js', [dir]),
    '@negokaz/excel-mcp-server': () => node('@negokaz/excel-mcp-server', 'dist/launcher.js'),
    '@modelcontextprotocol/server-everything': () =>
      node('@modelcontextprotocol/server-everything', 'dist/index.js'),
  };
  const recorded: Record<string, RecordedToolList> = {};
  for (const { server } of MATRIX) {
    const list = lists[server];
    if (!list) throw new Error(`${server}: no way to start it here`);
    const version = (require(`${server}/package.json`) as { version: string }).version;
    recorded[server] = { version, ...(await list()) };
  }
  writeFileSync(TOOL_LISTS_FILE, `${JSON.stringify(recorded, null, 2)}\n`);
}

beforeAll(async () => {
  if (process.env.S2SP_RECORD_FIXTURES === '1') await record();
}, 600_000);

describe('the recorded tool lists of the matrix servers', () => {
  it('hold every server at its pinned version, with each table tool the matrix calls', () => {
    const recorded = recordedToolLists();
    expect(Object.keys(recorded).sort()).toEqual(MATRIX.map((entry) => entry.server).sort());
    for (const entry of MATRIX) {
      const list = recorded[entry.server];
      expect(list?.version, entry.server).toBe(entry.version);
      const names = list?.tools.map((tool) => tool.name);
      for (const tool of entry.tools) expect(names, entry.server).toContain(tool.tool);
    }
  });
});
