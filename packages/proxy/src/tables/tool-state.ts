/**
 * The `--state` file: what the proxy learned about tools, kept across restarts. It holds
 *
 * - `declared`: each table tool the upstream's `outputSchema` or the operator's config made one,
 *   with its rows' location and declared columns — operator-trusted knowledge, used while the
 *   upstream's tool list is not known (its `tools/list` failed);
 * - `learned`: each client's own column catalogues (see `learned-columns.ts`), under the client's
 *   key (`client:<auth id>` or `address:<ip>`; never an MCP session, which a client picks), so a
 *   client gets back only what its own calls taught the proxy.
 *
 * Written atomically (a temporary file renamed over the old one), at most once a second and on
 * close, within `maxBytes` (the least recently active clients are left out first); read with a
 * size cap and every name and number checked, so a damaged or hostile file is ignored with a
 * warning rather than trusted.
 *
 * @module
 */

import { open, rename, writeFile } from 'node:fs/promises';
import type { Logger } from '@s2sp/server';
import { z } from 'zod';
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

const StateFileSchema = z.object({
  version: z.literal(1),
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
});

type StateFile = z.infer<typeof StateFileSchema>;

/**
 * The file's first {@link MAX_STATE_BYTES} + 1 bytes: a wrong `--state` path (a log, a device)
 * is never read whole into memory, and one byte more says it is too large.
 */
async function readCapped(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_STATE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await file.close();
  }
}

/** Options for {@link createToolState}. */
export interface ToolStateOptions {
  readonly path: string;
  readonly logger: Logger;
}

/** The state file of one proxy. */
export interface ToolState {
  /** Reads the file: declared tools, and fills `learned` with the saved catalogues. */
  load(learned: LearnedColumns): Promise<Record<string, DeclaredTool>>;
  /** Asks for a write soon (at most one a second). */
  changed(): void;
  /** Writes now if anything changed, and stops the timer. */
  flush(): Promise<void>;
}

/**
 * Creates the state file handler.
 *
 * @param options - the file, and where to warn
 * @param snapshot - what to write: the declared tools and the learned catalogues now
 */
export function createToolState(
  options: ToolStateOptions,
  snapshot: () => {
    declared: Record<string, DeclaredTool>;
    learned: LearnedColumns;
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
    let bytes = Buffer.byteLength(JSON.stringify({ version: 1, declared, learned: {} }));
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
    const text = JSON.stringify({ version: 1, declared, learned } satisfies StateFile);
    if (Buffer.byteLength(text) <= MAX_STATE_BYTES) return text;
    return JSON.stringify({ version: 1, declared: {}, learned: {} } satisfies StateFile);
  };

  const write = async () => {
    if (!dirty) return;
    dirty = false;
    const temporary = `${options.path}.${process.pid}.tmp`;
    try {
      await writeFile(temporary, serialize(), { mode: 0o600 });
      await rename(temporary, options.path);
    } catch (error) {
      options.logger.warn('state: cannot write the state file', {
        error: (error as Error).message.slice(0, 200),
      });
    }
  };

  return {
    async load(learned) {
      let bytes: Buffer;
      try {
        bytes = await readCapped(options.path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          options.logger.warn('state: cannot read the state file; starting without it', {
            error: (error as Error).message.slice(0, 200),
          });
        }
        return {};
      }
      let parsed: StateFile;
      try {
        if (bytes.length > MAX_STATE_BYTES) throw new Error('it is larger than 1 MiB');
        parsed = StateFileSchema.parse(JSON.parse(bytes.toString('utf8')));
      } catch (error) {
        options.logger.warn('state: the state file is not valid; starting without it', {
          error: (error as Error).message.slice(0, 200),
        });
        return {};
      }
      for (const [client, tools] of Object.entries(parsed.learned)) {
        for (const [tool, table] of Object.entries(tools))
          learned.set(client, tool, table.columns, table.total);
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
      return declared;
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
