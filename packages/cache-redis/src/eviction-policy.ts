/**
 * The `maxmemory-policy` check. S2SP entries are live capabilities: a Redis that evicts keys to
 * make room (any policy but `noeviction`) can drop an entry whose `resource_url` an agent is
 * about to use. With `noeviction`, a full Redis refuses new writes instead, which the store
 * reports as `store_full` — the behaviour PROTOCOL §6 asks for.
 *
 * @module
 */
import type { NodeSender } from './redis-connection.js';

/** The only `maxmemory-policy` under which Redis never drops a live entry. */
export const REQUIRED_POLICY = 'noeviction';

/** What {@link checkEvictionPolicy} found. */
export interface EvictionPolicyReport {
  /** True when every master runs with `maxmemory-policy noeviction`. */
  readonly ok: boolean;
  /** The policy of each master (`"unknown"` when INFO did not say). */
  readonly policies: readonly string[];
  /** A sentence for the operator when not ok: what is wrong and the command that fixes it. */
  readonly message?: string;
}

/**
 * Reads `maxmemory_policy` from the text of `INFO memory`.
 *
 * @returns the policy, or `undefined` when the field is absent
 */
export function parseMaxmemoryPolicy(info: string): string | undefined {
  const match = /^maxmemory_policy:([^\r\n]*)/m.exec(info);
  return match?.[1]?.trim() || undefined;
}

function text(reply: unknown): string {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('utf8');
  // node-redis may map a RESP3 verbatim string to an object with toString().
  return reply === null || reply === undefined ? '' : String(reply);
}

/**
 * Asks every master for its `maxmemory-policy` (through `INFO memory`, which managed services
 * that disable `CONFIG` still answer).
 *
 * @param masters - one sender per master
 */
export async function checkEvictionPolicy(masters: NodeSender[]): Promise<EvictionPolicyReport> {
  const policies = await Promise.all(
    masters.map(
      async (send) => parseMaxmemoryPolicy(text(await send(['INFO', 'memory']))) ?? 'unknown',
    ),
  );
  const wrong = [...new Set(policies.filter((policy) => policy !== REQUIRED_POLICY))];
  if (wrong.length === 0) return { ok: true, policies };
  return {
    ok: false,
    policies,
    message: `Redis runs with maxmemory-policy ${wrong.join(', ')}, so it may evict live S2SP entries and a fresh resource_url could fail. Run "CONFIG SET maxmemory-policy noeviction" on every Redis node (and set it in redis.conf), or give S2SP a Redis of its own.`,
  };
}
