/**
 * sql-consumer declares S2SP in its MCP capabilities (PROTOCOL §7.7) as the other apps do, although
 * query_tables is registered with `server.use`: `experimental.s2sp` for 2025 clients and the
 * `io.github.s2sp/s2sp` extension for 2026-07-28 ones.
 */
import { PROTOCOL } from '@s2sp/core';
import { silentLogger } from '@s2sp/server';
import { connectEraClient, runTitle, SDK_CLIENT_RUNS } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlServer } from '../src/sql-server.js';

const sql = createSqlServer({ logger: silentLogger });
let mcpUrl = '';
beforeAll(async () => {
  ({ mcpUrl } = await sql.server.listen({ port: 0, host: '127.0.0.1' }));
});
afterAll(() => sql.server.close());
const CAPABILITY = {
  version: PROTOCOL.version,
  dataPlanePath: PROTOCOL.dataPathPrefix,
  roles: ['consumer', 'resource'],
};

describe('sql-consumer in the MCP capabilities', () => {
  it.each(SDK_CLIENT_RUNS.map((run) => [runTitle(run), run] as const))(
    '%s: declares S2SP (consumer and resource) both ways',
    async (_title, run) => {
      const client = await connectEraClient(mcpUrl, run);
      try {
        const capabilities = client.capabilities() as {
          experimental?: Record<string, unknown>;
          extensions?: Record<string, unknown>;
        };
        expect(capabilities.experimental?.[PROTOCOL.capabilityKey]).toEqual(CAPABILITY);
        if (run.sdk === 2 && run.era !== 'legacy')
          expect(capabilities.extensions?.[PROTOCOL.extensionId]).toEqual(CAPABILITY);
      } finally {
        await client.close();
      }
    },
  );
});
