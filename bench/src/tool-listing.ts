/**
 * The proxy's `tools/list`, in o200k tokens: every tool of every server of the proxy's real-server
 * matrix (their recorded tool lists, served again by `listing-server.mjs`) and of the proxy's own
 * fixtures, each made a table tool (`tableTools` naming every tool), listed directly and through
 * a running proxy by the official SDK client. What S2SP adds to a table tool's entry is counted
 * before its column catalogue (`listing-tokens.ts`, shared with the proxy's test of the bound).
 * A count, not a timing: deterministic, so `--quick` changes nothing.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createS2SPProxy } from '@s2sp/proxy';
import { silentLogger } from '@s2sp/server';
import {
  type ListedTool,
  measuredUpstreams,
  o200k,
  toolCosts,
} from '../../packages/proxy/test/real-servers/listing-tokens.js';
import type { BenchRow } from './report.js';

const SECTION = '16. tools/list through the proxy: what S2SP adds to each table tool (o200k_base)';
/** The bound on what S2SP adds to one table tool's entry before its column catalogue. */
const MAX_ADDED = 150;
/** The proxy's test fixtures, from `bench/dist/` or `bench/src/`. */
const FIXTURES = new URL('../../packages/proxy/test/fixtures/', import.meta.url);

/**
 * The same measurement on the code before the guidance moved to the instructions (main f1f888b,
 * this function run with vitest on its sources): the proxy's tools/list, and the largest and the
 * mean addition per table tool. The proxy then served the upstream's instructions unchanged.
 */
const BEFORE: Readonly<Record<string, { proxied: number; max: number; mean: number }>> = {
  '@modelcontextprotocol/server-postgres': { proxied: 474, max: 442, mean: 442 },
  '@zeddotdev/postgres-context-server': { proxied: 1043, max: 474, mean: 458 },
  'mcp-postgres-server': { proxied: 3096, max: 473, mean: 448 },
  '@henkey/postgres-mcp-server': { proxied: 14062, max: 473, mean: 444 },
  '@bytebase/dbhub': { proxied: 1258, max: 472, mean: 457 },
  '@benborla29/mcp-server-mysql': { proxied: 536, max: 442, mean: 442 },
  '@berthojoris/mcp-mysql-server': { proxied: 29969, max: 474, mean: 443 },
  'mcp-server-sqlite-npx': { proxied: 2573, max: 442, mean: 442 },
  '@executeautomation/database-server': { proxied: 4817, max: 443, mean: 441 },
  '@modelcontextprotocol/server-memory': { proxied: 8127, max: 641, mean: 641 },
  '@modelcontextprotocol/server-filesystem': { proxied: 11779, max: 642, mean: 642 },
  '@negokaz/excel-mcp-server': { proxied: 4012, max: 443, mean: 442 },
  '@modelcontextprotocol/server-everything': { proxied: 7652, max: 641, mean: 457 },
  'table-server': { proxied: 6539, max: 638, mean: 464 },
  'shapes-server': { proxied: 9256, max: 443, mean: 443 },
  'hostile-server': { proxied: 2474, max: 443, mean: 443 },
  'relay-server': { proxied: 4444, max: 443, mean: 443 },
  'notify-server': { proxied: 1933, max: 443, mean: 442 },
};

const thousands = (n: number) => n.toLocaleString('en-US');

interface Listing {
  readonly tools: ListedTool[];
  readonly instructions: string;
}

async function listed(client: Client): Promise<Listing> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...(page.tools as unknown as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { tools, instructions: client.getInstructions() ?? '' };
}

/** One upstream listed directly, then through a proxy that makes every tool a table tool. */
async function measure(
  upstream: ReturnType<typeof measuredUpstreams>[number]['upstream'],
): Promise<{ direct: Listing; proxied: Listing }> {
  const direct = new Client({ name: 's2sp-bench', version: '1' });
  await direct.connect(
    new StdioClientTransport({
      command: upstream.command,
      args: [...(upstream.args ?? [])],
      stderr: 'ignore',
    }),
  );
  let directListing: Listing;
  try {
    directListing = await listed(direct);
  } finally {
    await direct.close();
  }
  const proxy = createS2SPProxy({
    upstream,
    tableTools: directListing.tools.map((tool) => ({ name: tool.name })),
    logger: silentLogger,
    onUpstreamStderr: () => {},
  });
  try {
    await proxy.start();
    const listener = await proxy.listen();
    const client = new Client({ name: 's2sp-bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.mcpUrl)));
    try {
      return { direct: directListing, proxied: await listed(client) };
    } finally {
      await client.close();
    }
  } finally {
    await proxy.close();
  }
}

/** The rows of section 16: one per upstream, and the matrix as a whole. */
export async function toolListingBenchmark(): Promise<BenchRow[]> {
  const servers = Object.keys(
    JSON.parse(readFileSync(new URL('real-servers/tool-lists.json', FIXTURES), 'utf8')) as object,
  );
  const rows: BenchRow[] = [];
  let largest = 0;
  let count = 0;
  for (const { name, upstream } of measuredUpstreams(FIXTURES, servers)) {
    const { direct, proxied } = await measure(upstream);
    const costs = toolCosts(direct.tools, proxied.tools);
    const added = costs.map((cost) => cost.added);
    const max = Math.max(...added);
    const mean = Math.round(added.reduce((sum, value) => sum + value, 0) / added.length);
    const instructions = o200k(proxied.instructions) - o200k(direct.instructions);
    largest = Math.max(largest, max);
    count += costs.length;
    const before = BEFORE[name];
    rows.push({
      section: SECTION,
      name: `${name} (${costs.length} tools)`,
      values: {
        'upstream tools/list': o200k(direct.tools),
        'through the proxy, before → now': `${before ? thousands(before.proxied) : '—'} → ${thousands(o200k(proxied.tools))}`,
        'of it, catalogues': costs.reduce((sum, cost) => sum + cost.catalogue, 0),
        'added per table tool, before: max / mean': before ? `${before.max} / ${before.mean}` : '—',
        'now: max / mean': `${max} / ${mean}`,
        'instructions added (once per session), before → now': `0 → ${instructions}`,
      },
      target: `S2SP adds ≤ ${MAX_ADDED} o200k tokens to each table tool before its catalogue`,
      met: max <= MAX_ADDED,
    });
  }
  rows.push({
    section: SECTION,
    name: `every tool measured (${count})`,
    how: 'each upstream listed directly and through createS2SPProxy (tableTools naming every tool) by the official SDK client; each entry is the JSON of one tools/list entry, counted with js-tiktoken o200k_base',
    values: {
      'largest addition to one table tool, before → now': `${Math.max(...Object.values(BEFORE).map((b) => b.max))} → ${largest}`,
    },
    target: `≤ ${MAX_ADDED}`,
    met: largest <= MAX_ADDED,
  });
  return rows;
}
