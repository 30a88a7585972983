import { spawnSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S2SPError } from '@s2sp/core';
import type { Logger } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '../mcp-sdk.js';
import { createS2SPProxy } from '../proxy.js';
import type { CatalogueColumn } from './column-catalogue.js';
import { createLearnedColumns, type LearnedColumns } from './learned-columns.js';
import type { DeclaredTool } from './table-tools.js';
import { createToolState, MAX_STATE_BYTES, MAX_STATE_CLIENTS } from './tool-state.js';

interface Warning {
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

function recorder(): Logger & { warnings: Warning[] } {
  const warnings: Warning[] = [];
  const ignore = () => {};
  return {
    warnings,
    debug: ignore,
    info: ignore,
    error: ignore,
    warn: (message, fields) => warnings.push({ message, fields }),
  };
}

const stateFile = () => join(mkdtempSync(join(tmpdir(), 's2sp-tool-state-')), 'state.json');

const columns = (...names: string[]): CatalogueColumn[] =>
  names.map((name, i) => ({ name, tokensPerRow: i + 1, distinct: 0.5 }));

const DECLARED: Record<string, DeclaredTool> = {
  rows: { source: 'declared', pointer: ['cities'], columns: ['id', 'city'] },
  configured: { source: 'config', columns: [] },
};

/** The client keys' secret the handlers here write. */
const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I';

/** A state handler over `path` that writes `declared` and `learned`. */
function stateOver(path: string, learned: LearnedColumns, declared = DECLARED) {
  const logger = recorder();
  const state = createToolState({ path, logger }, () => ({ declared, learned, secret: SECRET }));
  return { state, logger };
}

async function written(learned: LearnedColumns, declared = DECLARED) {
  const path = stateFile();
  const { state } = stateOver(path, learned, declared);
  state.changed();
  await state.flush();
  return { path, json: JSON.parse(readFileSync(path, 'utf8')) };
}

async function loaded(path: string) {
  const learned = createLearnedColumns();
  const { state, logger } = stateOver(path, createLearnedColumns());
  const { declared, secret } = await state.load(learned);
  return { declared, secret, learned, warnings: logger.warnings };
}

const VALID = {
  version: 2,
  secret: SECRET,
  declared: { rows: { source: 'declared', pointer: '/cities', columns: ['id'] } },
  learned: {
    'client:a': { rows: { total: 1, columns: [{ name: 'id', tokensPerRow: 2, distinct: 1 }] } },
  },
};

describe('createToolState: a round trip', () => {
  it('keeps declared tools and each client’s catalogue, least recently used first', async () => {
    const learned = createLearnedColumns();
    learned.set('client:a', 'rows', columns('id', 'city'), 2);
    learned.set('address:127.0.0.1', 'rows', columns('id'), 3);
    learned.set('session:abc', 'rows', columns('id'), 1);
    learned.set('client:a', 'other', columns('x'), 1);
    const { path, json } = await written(learned);
    // A session id is the client's choice, never a key kept across restarts.
    expect(Object.keys(json.learned)).toEqual(['address:127.0.0.1', 'client:a']);
    expect(json.declared).toEqual({
      rows: { source: 'declared', pointer: '/cities', columns: ['id', 'city'] },
      configured: { source: 'config', columns: [] },
    });
    const again = await loaded(path);
    expect(again.warnings).toEqual([]);
    expect(again.secret).toBe(SECRET);
    expect(again.declared).toEqual(DECLARED);
    expect(again.learned.entries().map(([client]) => client)).toEqual([
      'address:127.0.0.1',
      'client:a',
    ]);
    expect(again.learned.get('client:a', 'rows')).toEqual({
      total: 2,
      columns: columns('id', 'city'),
    });
    expect(again.learned.get('session:abc', 'rows')).toBeUndefined();
  });

  it('a missing file is no warning', async () => {
    const { declared, learned, warnings } = await loaded(stateFile());
    expect(declared).toEqual({});
    expect(learned.size()).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('a declared tool with a bad pointer is left out, the rest is kept', async () => {
    const path = stateFile();
    writeFileSync(
      path,
      JSON.stringify({
        ...VALID,
        declared: {
          ...VALID.declared,
          bad: { source: 'config', pointer: 'no-slash', columns: [] },
        },
      }),
    );
    const { declared, learned, warnings } = await loaded(path);
    expect(Object.keys(declared)).toEqual(['rows']);
    expect(learned.get('client:a', 'rows')?.total).toBe(1);
    expect(warnings).toEqual([]);
  });
});

describe('createToolState: a file it does not trust is ignored with a warning', () => {
  const column = (patch: Record<string, unknown>) => ({
    ...VALID,
    learned: {
      'client:a': {
        rows: { total: 1, columns: [{ ...VALID.learned['client:a'].rows.columns[0], ...patch }] },
      },
    },
  });
  const tooManyClients = {
    ...VALID,
    learned: Object.fromEntries(
      Array.from({ length: MAX_STATE_CLIENTS + 1 }, (_, i) => [
        `client:${i}`,
        VALID.learned['client:a'],
      ]),
    ),
  };
  const cases: [string, string | Buffer][] = [
    ['damaged JSON', '{"version":1,"declared":{'],
    ['not JSON at all', Buffer.from([0xff, 0xfe, 0x00, 0x01])],
    ['another version', JSON.stringify({ ...VALID, version: 3 })],
    ['version 2 without its secret', JSON.stringify({ ...VALID, secret: undefined })],
    ['a secret of the wrong size', JSON.stringify({ ...VALID, secret: 'abc' })],
    ['a missing part', JSON.stringify({ version: 1, declared: {} })],
    ['a column name over 64 characters', JSON.stringify(column({ name: 'x'.repeat(65) }))],
    ['a distinctiveness over 1', JSON.stringify(column({ distinct: 2 }))],
    ['a negative cost', JSON.stringify(column({ tokensPerRow: -1 }))],
    ['more than 100 clients', JSON.stringify(tooManyClients)],
    [
      'a declared source it does not know',
      JSON.stringify({ ...VALID, declared: { rows: { source: 'model', columns: [] } } }),
    ],
    // Valid JSON, and valid state, but more than 1 MiB of it.
    ['larger than 1 MiB', `${JSON.stringify(VALID)}${' '.repeat(MAX_STATE_BYTES)}`],
  ];

  it.each(cases)('%s', async (_, content) => {
    const path = stateFile();
    writeFileSync(path, content);
    const { declared, learned, warnings } = await loaded(path);
    expect(declared).toEqual({});
    expect(learned.size()).toBe(0);
    expect(warnings.map((w) => w.message)).toEqual([
      'state: the state file is not valid; starting without it',
    ]);
  });

  it('one byte under the cap is read', async () => {
    const path = stateFile();
    const text = JSON.stringify(VALID);
    writeFileSync(path, `${text}${' '.repeat(MAX_STATE_BYTES - text.length)}`);
    const { declared, warnings } = await loaded(path);
    expect(Object.keys(declared)).toEqual(['rows']);
    expect(warnings).toEqual([]);
  });
});

describe('createToolState: a path that is not a regular file is refused at start', () => {
  const refused = async (path: string) => {
    const error = await loaded(path).catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
    expect((error as S2SPError).data?.variable).toBe('--state');
    return (error as Error).message;
  };

  it('a FIFO: refused at once (opening it must not wait for a writer)', async () => {
    const path = stateFile();
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    expect(await refused(path)).toContain('is a FIFO, not a regular file');
  });

  it('a directory, and a link to a FIFO', async () => {
    const directory = stateFile();
    mkdirSync(directory);
    expect(await refused(directory)).toContain('is a directory');
    const fifo = stateFile();
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const link = stateFile();
    symlinkSync(fifo, link);
    expect(await refused(link)).toContain('is a FIFO');
  });

  it('a link to a regular file is read; a dangling link is no file yet', async () => {
    const target = stateFile();
    writeFileSync(target, JSON.stringify(VALID));
    const link = stateFile();
    symlinkSync(target, link);
    expect(Object.keys((await loaded(link)).declared)).toEqual(['rows']);
    const dangling = stateFile();
    symlinkSync(join(dirname(target), 'missing.json'), dangling);
    expect((await loaded(dangling)).warnings).toEqual([]);
  });
});

describe('createToolState: writing cannot be redirected', () => {
  it('ignores links planted at the old predictable temporary name; writes 0600 and leaves nothing behind', async () => {
    const path = stateFile();
    const victim = join(dirname(path), 'victim.txt');
    writeFileSync(victim, 'precious', { mode: 0o644 });
    // The name the writer used to use, for this process and a few neighbours.
    for (let pid = process.pid - 2; pid <= process.pid + 2; pid++)
      symlinkSync(victim, `${path}.${pid}.tmp`);
    // An old state file, readable by all.
    writeFileSync(path, JSON.stringify(VALID), { mode: 0o644 });
    const learned = createLearnedColumns();
    learned.set('client:a', 'rows', columns('id'), 1);
    const { state, logger } = stateOver(path, learned);
    state.changed();
    await state.flush();
    expect(logger.warnings).toEqual([]);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(path).isFile()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).learned['client:a']).toBeDefined();
    const left = readdirSync(dirname(path)).filter(
      (name) =>
        name !== basename(path) &&
        name !== 'victim.txt' &&
        !lstatSync(join(dirname(path), name)).isSymbolicLink(),
    );
    expect(left).toEqual([]);
  });
});

describe('createToolState: a version 1 file', () => {
  it('drops the catalogues it kept under a bearer token’s position, keeps the rest', async () => {
    const path = stateFile();
    const table = VALID.learned['client:a'];
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        declared: VALID.declared,
        learned: {
          'client:bearer-token-1': table,
          'client:bearer-token-12': table,
          'client:verified-id': table,
          'address:127.0.0.1': table,
        },
      }),
    );
    const again = await loaded(path);
    expect(again.warnings).toEqual([]);
    expect(again.secret).toBeUndefined();
    expect(Object.keys(again.declared)).toEqual(['rows']);
    expect(again.learned.entries().map(([client]) => client)).toEqual([
      'client:verified-id',
      'address:127.0.0.1',
    ]);
  });
});

describe('createToolState: what is written stays within the caps', () => {
  it('writes the 100 most recently active clients', async () => {
    const learned = createLearnedColumns();
    for (let i = 0; i < 150; i++) learned.set(`client:${i}`, 'rows', columns('id'), 1);
    learned.set('client:3', 'rows', columns('id', 'city'), 2);
    const { json } = await written(learned);
    const kept = Object.keys(json.learned);
    expect(kept).toHaveLength(MAX_STATE_CLIENTS);
    expect(kept).toEqual([...Array.from({ length: 99 }, (_, i) => `client:${i + 51}`), 'client:3']);
  });

  it('leaves out the least recently active clients to stay within 1 MiB', async () => {
    const learned = createLearnedColumns();
    // About 270 kB per client: three fit in 1 MiB, four do not.
    const wide = columns(...Array.from({ length: 25 }, (_, i) => `${i}`.padEnd(64, 'c')));
    for (const client of ['client:a', 'client:b', 'client:c', 'client:d'])
      for (let t = 0; t < 100; t++) learned.set(client, `tool_${t}`, wide, 25);
    learned.set('client:a', 'tool_0', wide, 25);
    const { path, json } = await written(learned);
    expect(Object.keys(json.learned)).toEqual(['client:c', 'client:d', 'client:a']);
    expect(readFileSync(path).length).toBeLessThanOrEqual(MAX_STATE_BYTES);
    expect(readFileSync(path).length).toBeGreaterThan(MAX_STATE_BYTES / 2);
    expect((await loaded(path)).warnings).toEqual([]);
  });
});

const TABLE_UPSTREAM = {
  kind: 'stdio' as const,
  command: process.execPath,
  args: [fileURLToPath(new URL('../../test/fixtures/table-server.mjs', import.meta.url))],
};

/** Runs a proxy over the state file `path` with `tokens`, and `use` as the holder of `token`. */
async function withProxy<T>(
  run: { path: string; tokens: string[]; token: string; logger?: Logger },
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const proxy = createS2SPProxy({
    upstream: TABLE_UPSTREAM,
    stateFile: run.path,
    auth: { bearerTokens: run.tokens },
    logger: run.logger ?? recorder(),
  });
  try {
    await proxy.start();
    const listener = await proxy.listen();
    const client = new Client({ name: 'state-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listener.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${run.token}` } },
      }),
    );
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  } finally {
    await proxy.close();
  }
}

describe('a proxy with a --state file it cannot use', () => {
  const TOKEN = 'state-test-token-0123456789';
  const cases = [
    ['damaged', '{"version":1,'],
    ['wrong-shaped', JSON.stringify({ ...VALID, version: 'one' })],
    ['oversized', ' '.repeat(MAX_STATE_BYTES + 1)],
  ];

  it.each(cases)('%s: starts, warns once, serves, and writes a good file', async (_, content) => {
    const path = stateFile();
    writeFileSync(path, content);
    const logger = recorder();
    await withProxy({ path, tokens: [TOKEN], token: TOKEN, logger }, async (client) => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('declared');
      // A call teaches the proxy this client's catalogue: something to write over the bad file.
      expect((await client.callTool({ name: 'rows' })).isError).toBeFalsy();
    });
    expect(logger.warnings.map((w) => w.message)).toEqual([
      'state: the state file is not valid; starting without it',
    ]);
    const rewritten = JSON.parse(readFileSync(path, 'utf8'));
    expect(rewritten.version).toBe(2);
    expect(rewritten.declared.declared?.pointer).toBe('/cities');
    // The client is its token, as a keyed hash: never the token, nor its position.
    const [client] = Object.keys(rewritten.learned);
    expect(client).toMatch(/^token:[A-Za-z0-9_-]{32}$/);
    expect(readFileSync(path, 'utf8')).not.toContain(TOKEN);
  });
});

describe('a proxy with --state and several bearer tokens', () => {
  const A = 'state-token-aaaaaaaaaaaaaaaa';
  const B = 'state-token-bbbbbbbbbbbbbbbb';
  const description = async (client: Client) =>
    (await client.listTools()).tools.find((tool) => tool.name === 'rows')?.description ?? '';

  it('keeps what a token taught under that token, whatever its position after a restart', async () => {
    const path = stateFile();
    // A teaches the proxy the columns of `rows`, as the first of two tokens.
    await withProxy({ path, tokens: [A, B], token: A }, async (client) => {
      expect((await client.callTool({ name: 'rows' })).isError).toBeFalsy();
      expect(await description(client)).toContain('"population" ~');
    });
    // Restarted with B alone, in the position A had: B sees nothing A taught.
    const seenByB = await withProxy({ path, tokens: [B], token: B }, description);
    expect(seenByB).not.toContain('"population" ~');
    // Restarted with A second: A still has its catalogue.
    const seenByA = await withProxy({ path, tokens: [B, A], token: A }, description);
    expect(seenByA).toContain('"population" ~');
  });
});
