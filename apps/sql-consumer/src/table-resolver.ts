/**
 * Resolves the tables of one `query_tables` call through `@s2sp/server`'s consumer machinery, so
 * that every fetch follows the server's consumer rules: the allow-list, public destinations
 * only, the path check, byte cap and timeout, the shared fetch concurrency limit, the row_ids /
 * filter / abstract_data hand-offs, merge and column_mapping.
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { type RowWithId, S2SP_ERROR_STATUS, S2SPError, type S2SPErrorCode } from '@s2sp/core';
import type { S2SP } from '@s2sp/server';
import { z } from 'zod';
import type { TableSourceArguments } from './table-sources.js';

/** The MCP `extra` of the call being answered: its abort signal reaches the fetch. */
export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Resolves one table's S2SP arguments to its merged rows. */
export interface TableResolver {
  /**
   * @param name - the table's name, for messages
   * @param source - resource_url or body_data, and optionally row_ids, filter, abstract_data,
   *   column_mapping
   * @param extra - the calling tool's `extra` (abort signal, request)
   * @throws S2SPError with the consumer machinery's code (`forbidden`, `not_found`, `timeout`,
   *   `payload_too_large`, `upstream_error`, `invalid_request`…), its message prefixed by the table
   */
  resolve(name: string, source: TableSourceArguments, extra: ToolCallExtra): Promise<RowWithId[]>;
}

type CallResult = {
  isError?: boolean;
  content?: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
};

// Every row: `_row_id` is 0..n-1 (PROTOCOL §1), so this filter selects the whole table.
const WHOLE_TABLE = { _row_id: { gte: 0 } } as const;

function idsOf(body: unknown): number[] | undefined {
  let rows = body;
  if (typeof body === 'string') {
    try {
      rows = JSON.parse(body);
    } catch {
      return undefined; // the consumer machinery reports it
    }
  }
  if (!Array.isArray(rows)) return undefined;
  const ids = rows.map((row) => (row as { _row_id?: unknown } | null)?._row_id);
  return ids.every((id): id is number => Number.isSafeInteger(id)) ? ids : undefined;
}

/**
 * Creates the resolver on the runtime `s2sp` (the one whose data plane and fetch limit the server
 * uses).
 *
 * TODO(lead): `@s2sp/server` resolves one table per consumer-tool call and has no public
 * function to resolve S2SP consumer arguments outside a registered tool. This registers a
 * consumer tool on a private `McpServer` that is never connected and calls its SDK handler
 * (`RegisteredTool.handler`) once per table, passing the rows out through a per-call slot. The
 * fix is one public method on `S2SP`:
 * `resolveConsumerRows(args: ConsumerArguments, extra?: { signal?: AbortSignal }):
 *   Promise<{ rows: RowWithId[]; info: ConsumerCallInfo }>` running exactly the
 * `createConsumerToolCallback` steps (parse, fetch under the shared limit, merge, map), plus a
 * whole-table hand-off (`resource_url` alone, or `row_ids: "all"`): today a consumer call needs
 * abstract_data, row_ids or a filter, so a whole table is asked for with the filter
 * `{"_row_id":{"gte":0}}`.
 */
export function createTableResolver(s2sp: S2SP): TableResolver {
  const slots = new Map<string, (rows: RowWithId[]) => void>();
  const mcp = new McpServer({ name: 'sql-consumer-resolver', version: '1' });
  const tool = s2sp.registerConsumerTool(
    mcp,
    'resolve_table',
    {
      description: 'Internal: resolves one table of query_tables.',
      inputSchema: { slot: z.string() },
    },
    (rows, args) => {
      slots.get(args.slot)?.(rows);
      return { content: [] };
    },
  );
  const handler = tool.handler as unknown as (
    args: Record<string, unknown>,
    extra: ToolCallExtra,
  ) => Promise<CallResult>;

  return {
    async resolve(name, source, extra) {
      const args: Record<string, unknown> = { ...source };
      const selected =
        source.abstract_data !== undefined ||
        source.row_ids !== undefined ||
        source.filter !== undefined;
      if (!selected) {
        if (source.resource_url !== undefined) args.filter = WHOLE_TABLE;
        else {
          const ids = idsOf(source.body_data);
          if (ids) args.row_ids = ids;
        }
      }
      const slot = crypto.randomUUID();
      let rows: RowWithId[] | undefined;
      slots.set(slot, (resolved) => {
        rows = resolved;
      });
      let result: CallResult;
      try {
        result = await handler({ ...args, slot }, extra);
      } finally {
        slots.delete(slot);
      }
      if (result.isError || !rows) {
        const meta = result._meta?.['s2sp/error-code'];
        const code: S2SPErrorCode =
          typeof meta === 'string' && Object.hasOwn(S2SP_ERROR_STATUS, meta)
            ? (meta as S2SPErrorCode)
            : 'internal';
        const text = result.content?.find((c) => c.type === 'text')?.text ?? 'no rows came back';
        throw new S2SPError(code, `Table ${name}: ${text}`);
      }
      return rows;
    },
  };
}
