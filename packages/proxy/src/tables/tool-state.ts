/**
 * The `--state` file: what the proxy learned about tools, kept across restarts. It holds
 *
 * - `declared`: each table tool the upstream's `outputSchema` or the operator's config made one,
 *   with its rows' location and declared columns — operator-trusted knowledge, used while the
 *   upstream's tool list is not known (its `tools/list` failed);
 * - `learned`: each client's own column catalogues (see `learned-columns.ts`), under the client's
 *   key (`token:<keyed hash>` for a static bearer token, `client:<auth id>` or `address:<ip>`;
 *   never an MCP session, which a client picks, nor a token's position), so a client gets back
 *   only what its own calls taught the proxy;
 * - `secret`: the key of the keyed hashes (see `client-keys.ts`), so that a token maps to the
 *   same client after a restart.
 *
 * Written atomically and privately: a temporary file of a random name, created exclusively
 * (never through a link someone placed there) with mode 0600, synced, then renamed over the old
 * one; at most once a second and on close, within `maxBytes` (the least recently active clients
 * are left out first). Read with a size cap and every name and number checked, so a damaged or
 * hostile file is ignored with a warning rather than trusted; a path that is there but is not a
 * regular file (a FIFO, a directory, a device) is refused at start, by the guard `--config`
 * shares (`cli/regular-file.ts`).
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { constants as fs } from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '@s2sp/core';
import { configError, configErrorVariable } from '@s2sp/core/options';
import { z } from 'zod';
import { type RegularFileRead, readRegularFile } from '../cli/regular-file.js';
import { CLIENT_KEY_SECRET } from '../client-keys.js';
import { MAX_CATALOGUE_COLUMNS, MAX_COLUMN_CHARS } from './column-catalogue.js';
import { parseJsonPointer, pointerTo } from './json-pointer.js';
import type { LearnedColumns } from './learned-columns.js';
import type { DeclaredTool } from './table-tools.js';

/** Largest state file read or written. */
export const MAX_STATE_BYTES = 1024 * 1024;
/** Clients whose catalogues are written. */
export const MAX_STATE_CLIENTS = 100;
const MAX_TOOLS = 1_000;
const WRITE_DELAY_MS = 1_000;

const ToolName = z.string().min(1).max(128);
const ColumnName = z.string().max(MAX_COLUMN_CHARS);

/** The file's version: 2 keys static-token clients by a keyed hash and keeps the secret. */
const VERSION = 2 as const;

/**
 * The client key a version-1 file gave a static bearer token: its position. Such entries are
 * dropped on reading, since another token may hold that position now.
 */
const POSITIONAL = /^client:bearer-token-\d+$/;

const StateFileSchema = z
  .object({
    version: z.union([z.literal(1), z.literal(VERSION)]),
    secret: z.string().regex(CLIENT_KEY_SECRET).optional(),
    declared: z
      .record(
        ToolName,
        z.object({
          source: z.enum(['declared', 'config']),
          pointer: z.string().max(1_000).optional(),
          columns: z.array(ColumnName).max(MAX_CATALOGUE_COLUMNS),
        }),
      )
      .refine((tools) => Object.keys(tools).length <= MAX_TOOLS),
    learned: z
      .record(
        z.string().max(300),
        z
          .record(
            ToolName,
            z.object({
              total: z.number().int().nonnegative(),
              columns: z
                .array(
                  z.object({
                    name: ColumnName,
                    tokensPerRow: z.number().int().nonnegative().max(1_000_000),
                    distinct: z.number().min(0).max(1),
                  }),
                )
                .max(MAX_CATALOGUE_COLUMNS),
            }),
          )
          .refine((tools) => Object.keys(tools).length <= MAX_TOOLS),
      )
      .refine((clients) => Object.keys(clients).length <= MAX_STATE_CLIENTS),
  })
  // Version 2's keys mean nothing without its secret.
  .refine((file) => file.version === 1 || file.secret !== undefined, {
    message: 'a version 2 file needs its secret',
  });

type StateFile = z.infer<typeof StateFileSchema>;

/**
 * The state file's bytes, within {@link MAX_STATE_BYTES} (see `readRegularFile`, the one guard
 * of the files the command line names). `undefined`: there is no file.
 *
 * @throws S2SPError `invalid_config` when the path is there but is not a regular file
 */
function readState(
  path: string,
): Extract<RegularFileRead, { kind: 'file' | 'too-large' }> | undefined {
  const file = readRegularFile(path, MAX_STATE_BYTES);
  if (file.kind === 'missing') return undefined;
  if (file.kind === 'not-regular')
    throw configError(
      '--state',
      `${path} is ${file.what}, not a regular file. Give the path of a file the proxy may create and replace, or remove what is there.`,
    );
  return file;
}

/** Makes a rename in `directory` durable (best effort: not every system can open a directory). */
async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, fs.O_RDONLY);
    await handle.sync();
  } catch {
    // The file itself was synced; only the rename may be lost in a crash.
  } finally {
    await handle?.close().catch(() => {});
  }
}

/** Options for {@link createToolState}. */
export interface ToolStateOptions {
  readonly path: string;
  readonly logger: Logger;
}

/** What a state file gave back, besides the catalogues it filled in. */
export interface LoadedState {
  readonly declared: Record<string, DeclaredTool>;
  /** The client keys' secret ({@link CLIENT_KEY_SECRET}), when the file kept one. */
  readonly secret?: string;
}

/** The state file of one proxy. */
export interface ToolState {
  /**
   * Reads the file: declared tools and the client keys' secret, and fills `learned` with the
   * saved catalogues.
   *
   * @throws S2SPError `invalid_config` when the path is not a regular file
   */
  load(learned: LearnedColumns): Promise<LoadedState>;
  /** Asks for a write soon (at most one a second). */
  changed(): void;
  /** Writes now if anything changed, and stops the timer. */
  flush(): Promise<void>;
}

/**
 * Creates the state file handler.
 *
 * @param options - the file, and where to warn
 * @param snapshot - what to write: the declared tools, the learned catalogues and the client
 *   keys' secret now
 */
export function createToolState(
  options: ToolStateOptions,
  snapshot: () => {
    declared: Record<string, DeclaredTool>;
    learned: LearnedColumns;
    secret: string;
  },
): ToolState {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dirty = false;
  let writing: Promise<void> = Promise.resolve();

  const serialize = (): string => {
    const now = snapshot();
    const declared: StateFile['declared'] = {};
    for (const [name, tool] of Object.entries(now.declared).slice(0, MAX_TOOLS)) {
      if (name.length > 128) continue;
      declared[name] = {
        source: tool.source,
        ...(tool.pointer && { pointer: tool.pointer.map(pointerTo).join('') }),
        columns: tool.columns
          .slice(0, MAX_CATALOGUE_COLUMNS)
          .map((c) => c.slice(0, MAX_COLUMN_CHARS)),
      };
    }
    // Most recently active clients first, so the cut below leaves out the least active ones.
    const clients = now.learned
      .entries()
      .filter(([client]) => !client.startsWith('session:') && client.length <= 300)
      .reverse()
      .slice(0, MAX_STATE_CLIENTS);
    // Each client's entry is measured once: serializing the whole file again for every client
    // left out took tens of seconds, on the event loop, with 100 full catalogues.
    const head = { version: VERSION, secret: now.secret } as const;
    let bytes = Buffer.byteLength(JSON.stringify({ ...head, declared, learned: {} }));
    const kept: [string, StateFile['learned'][string]][] = [];
    for (const [client, tools] of clients) {
      const entry = Object.fromEntries(
        tools
          .filter(([tool]) => tool.length <= 128)
          .slice(-MAX_TOOLS)
          .map(([tool, table]) => [tool, { total: table.total, columns: [...table.columns] }]),
      );
      // `"client":{…},`
      bytes +=
        Buffer.byteLength(JSON.stringify(client)) + Buffer.byteLength(JSON.stringify(entry)) + 2;
      if (bytes > MAX_STATE_BYTES) break;
      kept.push([client, entry]);
    }
    const learned: StateFile['learned'] = Object.fromEntries(kept.reverse());
    const text = JSON.stringify({ ...head, declared, learned } satisfies StateFile);
    if (Buffer.byteLength(text) <= MAX_STATE_BYTES) return text;
    return JSON.stringify({ ...head, declared: {}, learned: {} } satisfies StateFile);
  };

  const write = async () => {
    if (!dirty) return;
    dirty = false;
    // A name nobody can guess, created here or not at all: a link placed at a predictable name
    // would have had the file written through it, and then renamed into the state's place.
    const temporary = `${options.path}.${randomBytes(12).toString('hex')}.tmp`;
    let created = false;
    try {
      const file = await open(
        temporary,
        fs.O_WRONLY | fs.O_CREAT | fs.O_EXCL | fs.O_NOFOLLOW,
        0o600,
      );
      created = true;
      try {
        await file.writeFile(serialize());
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, options.path);
      created = false;
      await syncDirectory(dirname(options.path));
    } catch (error) {
      if (created) await unlink(temporary).catch(() => {});
      options.logger.warn('state: cannot write the state file', {
        error: (error as Error).message.slice(0, 200),
      });
    }
  };

  return {
    async load(learned) {
      let file: ReturnType<typeof readState>;
      try {
        file = readState(options.path);
      } catch (error) {
        if (configErrorVariable(error) !== undefined) throw error;
        options.logger.warn('state: cannot read the state file; starting without it', {
          error: (error as Error).message.slice(0, 200),
        });
        return { declared: {} };
      }
      if (file === undefined) return { declared: {} };
      let parsed: StateFile;
      try {
        if (file.kind === 'too-large') throw new Error('it is larger than 1 MiB');
        parsed = StateFileSchema.parse(JSON.parse(file.bytes.toString('utf8')));
      } catch (error) {
        options.logger.warn('state: the state file is not valid; starting without it', {
          error: (error as Error).message.slice(0, 200),
        });
        return { declared: {} };
      }
      let positional = 0;
      for (const [client, tools] of Object.entries(parsed.learned)) {
        // A version-1 file named a static token by its position, which another token may hold
        // now: there is no telling whose catalogue it was.
        if (parsed.version === 1 && POSITIONAL.test(client)) {
          positional++;
          continue;
        }
        for (const [tool, table] of Object.entries(tools))
          learned.set(client, tool, table.columns, table.total);
      }
      if (positional > 0) {
        options.logger.info('state: catalogues of bearer tokens kept by position were dropped', {
          clients: positional,
        });
      }
      const declared: Record<string, DeclaredTool> = {};
      for (const [name, tool] of Object.entries(parsed.declared)) {
        let pointer: string[] | undefined;
        try {
          pointer = tool.pointer === undefined ? undefined : parseJsonPointer(tool.pointer);
        } catch {
          continue;
        }
        declared[name] = {
          source: tool.source,
          columns: tool.columns,
          ...(pointer && { pointer }),
        };
      }
      return { declared, ...(parsed.secret !== undefined && { secret: parsed.secret }) };
    },
    changed() {
      dirty = true;
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        writing = writing.then(write);
      }, WRITE_DELAY_MS);
      timer.unref();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      writing = writing.then(write);
      await writing;
    },
  };
}
