/**
 * What the proxy adds to a tool's entry in `tools/list`, in o200k tokens: the entry as the proxy
 * lists it (JSON, as it goes on the wire) less the upstream's entry, less the tool's column
 * catalogue (its declared or learned columns and arrays, which describe the upstream's data, not
 * S2SP). The proxy's tests and the benchmark's tools/list section measure with it; the upstreams
 * are the matrix servers' recorded tool lists (`tool-lists.ts`, served again by
 * `fixtures/listing-server.mjs`) and the proxy's own fixtures ({@link measuredUpstreams}).
 */
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import { PROXY_TABLE_TEXT } from '../../src/advice.js';
import type { StdioUpstream } from '../../src/upstream/upstream-target.js';

const encoder = new Tiktoken(o200kRanks);

/** o200k_base tokens of a text, or of a value's JSON. */
export function o200k(value: unknown): number {
  return encoder.encode(typeof value === 'string' ? value : JSON.stringify(value)).length;
}

/** A tool as either side lists it (the JSON of one `tools/list` entry). */
export type ListedTool = { readonly name: string; readonly description?: string } & Record<
  string,
  unknown
>;

const CATALOGUE_LABELS = [
  PROXY_TABLE_TEXT.catalogue,
  PROXY_TABLE_TEXT.declaredColumns,
  PROXY_TABLE_TEXT.arrays,
];

/**
 * A listed description without its column catalogue: the paragraphs the proxy starts with a
 * catalogue's label (the columns, declared or learned, and the arrays of the last result).
 */
export function withoutCatalogue(description: string): string {
  return description
    .split('\n\n')
    .filter((paragraph) => !CATALOGUE_LABELS.some((label) => paragraph.startsWith(`${label}: `)))
    .join('\n\n');
}

/** One tool's cost in `tools/list`, directly and through the proxy. */
export interface ToolCost {
  readonly tool: string;
  /** o200k tokens of the upstream's entry. */
  readonly upstream: number;
  /** o200k tokens of the proxy's entry. */
  readonly proxied: number;
  /** Of those, the column catalogue's. */
  readonly catalogue: number;
  /** What S2SP adds before the catalogue: proxied − upstream − catalogue. */
  readonly added: number;
}

/**
 * The cost of each tool of `upstream` in `proxied` (matched by name).
 *
 * @param upstream - the tools as the upstream lists them
 * @param proxied - the same tools as the proxy lists them
 */
export function toolCosts(
  upstream: readonly ListedTool[],
  proxied: readonly ListedTool[],
): ToolCost[] {
  return upstream.map((tool) => {
    const listed = proxied.find((entry) => entry.name === tool.name);
    if (!listed) throw new Error(`the proxy does not list ${tool.name}`);
    const before = o200k(tool);
    const after = o200k(listed);
    const catalogue =
      listed.description === undefined
        ? 0
        : after - o200k({ ...listed, description: withoutCatalogue(listed.description) });
    return {
      tool: tool.name,
      upstream: before,
      proxied: after,
      catalogue,
      added: after - before - catalogue,
    };
  });
}

/** The proxy's own fixture servers (`test/fixtures/<name>.mjs`), measured beside the matrix. */
export const OWN_FIXTURES: readonly string[] = [
  'table-server',
  'shapes-server',
  'hostile-server',
  'relay-server',
  'notify-server',
];

/**
 * The upstreams measured: each matrix server's recorded tool list served again
 * (`listing-server.mjs <server>`), then each of {@link OWN_FIXTURES}, by name.
 *
 * @param fixtures - the proxy's `test/fixtures/` folder (the benchmark is bundled elsewhere)
 * @param servers - the matrix servers, as recorded
 */
export function measuredUpstreams(
  fixtures: URL,
  servers: readonly string[],
): { readonly name: string; readonly upstream: StdioUpstream }[] {
  const script = (name: string) => fileURLToPath(new URL(`${name}.mjs`, fixtures));
  return [
    ...servers.map((server) => ({
      name: server,
      upstream: {
        kind: 'stdio' as const,
        command: process.execPath,
        args: [script('listing-server'), server],
      },
    })),
    ...OWN_FIXTURES.map((name) => ({
      name,
      upstream: { kind: 'stdio' as const, command: process.execPath, args: [script(name)] },
    })),
  ];
}
