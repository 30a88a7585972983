/**
 * What the large-table and SQL sections share: the NWS-like rows they make, and how they connect
 * to a server and count tokens.
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tokenizers } from './tokenizer.js';

const EVENTS = Array.from({ length: 40 }, (_, i) => `Event type ${i}`);
const SEVERITIES = ['Minor', 'Moderate', 'Severe', 'Extreme'];

/**
 * NWS-like rows: two abstract-worthy columns with few values (event, severity), a number, and a
 * long body; with `onset`, an ISO timestamp too (the SQL sections type it).
 */
export function makeAlertRows(count: number, { onset = false } = {}): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `urn:oid:2.49.0.1.840.0.${(i * 7919).toString(16)}`,
    event: EVENTS[(i * 7) % EVENTS.length],
    severity: SEVERITIES[i % SEVERITIES.length],
    magnitude: (i * 31) % 100,
    ...(onset && { onset: new Date(Date.UTC(2026, 8, 13) + i * 60_000).toISOString() }),
    areaDesc: `County ${i % 254}; County ${(i + 1) % 254}`,
    description: `Alert ${i}: ${'Heavy rain and gusty winds are expected. '.repeat(6)}`,
  }));
}

/** o200k_base tokens of a text. */
export const o200k = (text: string): number => tokenizers.o200k_base.encode(text).length;

/** An MCP SDK client connected over Streamable HTTP. */
export async function connectMcp(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
