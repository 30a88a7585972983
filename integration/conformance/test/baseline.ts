/**
 * A conformance baseline: the YAML file the CLI reads with `--expected-failures` (a `server:` list
 * of scenarios expected to fail), where each entry also says why on its own line, as a comment
 * this harness reads and checks:
 *
 * ```yaml
 * server:
 *   - tools-call-image # needs tool test_image_content
 *   - server-sse-multiple-streams # suite: <why the suite is wrong>; evidence: <where it shows>
 * ```
 *
 * A `needs` entry claims that the scenario calls something the app does not have; the harness
 * asks the app and fails when it does have it, so the baseline cannot hide a real failure.
 */
import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isScalar, isSeq, parseDocument } from 'yaml';

/** What a scenario calls: a tool, prompt or resource URI by name, or a capability by path. */
export interface Need {
  readonly kind: 'tool' | 'prompt' | 'resource' | 'capability';
  /** A name, a URI, or a dotted capability path such as `resources.subscribe`. */
  readonly name: string;
}

/** One scenario of a baseline and the reason it is there. */
export type BaselineEntry =
  | { readonly scenario: string; readonly needs: Need }
  | { readonly scenario: string; readonly suiteBug: string }
  | { readonly scenario: string; readonly lacks: string };

const NEEDS = /^needs (tool|prompt|resource|capability) (\S+)$/;
const SUITE_BUG = /^suite: (.{20,})$/;
// What the server (or the proxy's upstream) lacks that no listing shows (a SHOULD it does not
// do), with the failing checks as evidence.
const LACKS = /^lacks: (.{20,}; evidence: .+)$/;

/**
 * Parses a baseline's text; throws naming the entry when one has no reason or a malformed one.
 *
 * @param text - the YAML text
 * @param file - the file's name, for error messages
 */
export function parseBaseline(text: string, file = 'baseline'): BaselineEntry[] {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
  const list = doc.get('server');
  if (!isSeq(list)) throw new Error(`${file}: needs a "server:" list (it may be empty: []).`);
  const seen = new Set<string>();
  return list.items.map((item) => {
    if (!isScalar(item) || typeof item.value !== 'string')
      throw new Error(`${file}: each "server" entry is a scenario name.`);
    const scenario = item.value;
    if (seen.has(scenario)) throw new Error(`${file}: ${scenario} is listed twice.`);
    seen.add(scenario);
    const reason = item.comment?.trim() ?? '';
    const needs = NEEDS.exec(reason);
    if (needs) return { scenario, needs: { kind: needs[1] as Need['kind'], name: needs[2] ?? '' } };
    const suiteBug = SUITE_BUG.exec(reason)?.[1];
    if (suiteBug) return { scenario, suiteBug };
    const lacks = LACKS.exec(reason)?.[1];
    if (lacks) return { scenario, lacks };
    throw new Error(
      `${file}: ${scenario} needs a reason on its line: "# needs tool|prompt|resource|capability NAME", "# suite: <why the suite is wrong; evidence>", or "# lacks: <what the server lacks>; evidence: <checks>".`,
    );
  });
}

/** Reads and parses a baseline file. */
export async function readBaseline(path: string): Promise<BaselineEntry[]> {
  return parseBaseline(await readFile(path, 'utf8'), path);
}

/** Every name a paged list method returns; none when the server does not offer the method. */
async function allNames(list: (cursor?: string) => Promise<{ names: string[]; next?: string }>) {
  const names: string[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = await list(cursor);
      names.push(...page.names);
      cursor = page.next;
    } while (cursor !== undefined && names.length < 10_000);
  } catch {
    return [];
  }
  return names;
}

/**
 * Whether the server behind `client` lacks `need`: a tool or prompt it does not list, a resource
 * it cannot read, or a capability it does not announce.
 */
export async function serverLacks(client: Client, need: Need): Promise<boolean> {
  switch (need.kind) {
    case 'tool': {
      const names = await allNames(async (cursor) => {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        return { names: page.tools.map((t) => t.name), next: page.nextCursor };
      });
      return !names.includes(need.name);
    }
    case 'prompt': {
      const names = await allNames(async (cursor) => {
        const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
        return { names: page.prompts.map((p) => p.name), next: page.nextCursor };
      });
      return !names.includes(need.name);
    }
    case 'resource':
      return client.readResource({ uri: need.name }).then(
        () => false,
        () => true,
      );
    case 'capability': {
      let value: unknown = client.getServerCapabilities();
      for (const key of need.name.split('.'))
        value = typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
      return value === undefined || value === false;
    }
  }
}
