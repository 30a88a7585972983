/**
 * Two proxy replicas over one Redis store, as docs/guide/proxy.md ("Several replicas") describes
 * them: each replica holds the upstream sessions of the clients it serves (a process each, in front
 * of the stateful relay fixture on stdio); a 2025-era client's `mcp-session-id` is known only to
 * the replica that opened it (elsewhere 404, and a new session there starts a new upstream
 * session); a 2026-07-28 client gets an upstream session on each replica it reaches; withheld rows
 * live in Redis, so a `resource_url` minted on one replica redeems once on the other; and closing
 * a replica ends its clients' upstream processes while the other keeps serving.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRedisBodyStore } from '@s2sp/cache-redis';
import { S2SPResultSchema } from '@s2sp/core';
import { startRedis } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../src/index.js';
import { ALL, agentModern, agentV1 } from './agents.js';
import { rawPost } from './raw-mcp.js';
import { startProxy } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/relay-server.mjs', import.meta.url));
const STDIO: StdioUpstream = { kind: 'stdio', command: process.execPath, args: [FIXTURE] };
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';
const CAROL = 'carol-token-0123456789abcdef';
/** `recall` answers `{ remembered }`; remembered CSV text is a table the proxy splits. */
const TABLE_RULE = { name: 'recall', pointer: '/remembered', format: 'csv' } as const;
const CSV = 'id,city,population\n1,Paris,2102650\n2,Rome,2748109\n3,Oslo,709037';

/** The pids of this process's children running the relay fixture (the upstream processes). */
function upstreamPids(): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], {
      encoding: 'utf8',
    });
  } catch {
    return []; // ps exits 1 when there are no children
  }
  return out
    .split('\n')
    .filter((line) => line.includes(FIXTURE))
    .map((line) => Number.parseInt(line.trim(), 10))
    .sort((a, b) => a - b);
}

/** Waits until `check` holds (an upstream session closing is asynchronous), at most ~5 s. */
async function until(check: () => boolean) {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

describe('two s2sp-proxy replicas over one Redis store', () => {
  it('keep each client’s upstream session on its replica, share withheld rows, and outlive each other', async () => {
    await using redis = await startRedis();
    const keyPrefix = `proxy-replicas-${Date.now()}:`;
    const storeA = createRedisBodyStore({ url: redis.url, keyPrefix });
    const storeB = createRedisBodyStore({ url: redis.url, keyPrefix });
    try {
      const replica = (store: typeof storeA) =>
        startProxy({
          upstream: STDIO,
          store,
          tableTools: [TABLE_RULE],
          auth: { bearerTokens: [ALICE, BOB, CAROL] },
        });
      const before = upstreamPids();
      await using b = await replica(storeB);
      await using a = await replica(storeA);
      // No upstream process before the first client: one per client, opened on its first request.
      expect([a.proxy.upstreamSessions(), b.proxy.upstreamSessions()]).toEqual([0, 0]);

      // Alice (2025 era) is routed to A, Bob (2025 era) to B: an upstream session each, on its replica.
      const alice = await agentV1(a.listener.mcpUrl, 'alice', ALL, ALICE);
      await using bob = await agentV1(b.listener.mcpUrl, 'bob', ALL, BOB);
      expect(await alice.call('remember', { value: CSV })).toEqual({ remembered: CSV });
      expect(await bob.call('remember', { value: 'bob’s connection' })).toEqual({
        remembered: 'bob’s connection',
      });
      expect([a.proxy.upstreamSessions(), b.proxy.upstreamSessions()]).toEqual([1, 1]);
      const spawned = upstreamPids().filter((pid) => !before.includes(pid));
      expect(spawned).toHaveLength(2);

      // A resource_url minted on A (rows withheld in Redis) redeems on B's data plane, once.
      const split = await alice.raw.callTool({
        name: 'recall',
        arguments: { abstract_domains: 'city' },
      });
      const { resource_url } = S2SPResultSchema.parse(split.structuredContent);
      const path = new URL(resource_url ?? '').pathname;
      const redeem = () =>
        fetch(`${b.listener.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"row_ids":[1]}',
        });
      const first = await redeem();
      expect(first.status).toBe(200);
      expect(((await first.json()) as { body: unknown }).body).toEqual([
        { _row_id: 1, id: 2, city: 'Rome', population: 2748109 },
      ]);
      expect((await redeem()).status).toBe(404);
      expect((await fetch(resource_url ?? '', { method: 'POST', body: '' })).status).toBe(404);

      // Alice's session id sent to B: unknown there (404), her state is not reachable from B.
      const aliceSession = (alice.raw.transport as { sessionId?: string }).sessionId;
      expect(aliceSession).toBeTypeOf('string');
      const elsewhere = await rawPost(
        b.listener.mcpUrl,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'recall', arguments: {} } },
        { sessionId: aliceSession, headers: { authorization: `Bearer ${ALICE}` } },
      );
      expect(elsewhere.status).toBe(404);
      // She starts a new session on B, with a new upstream session: fresh state, not A's or Bob's.
      await using aliceOnB = await agentV1(b.listener.mcpUrl, 'alice', ALL, ALICE);
      expect(await aliceOnB.call('recall')).toEqual({ remembered: null });
      expect(b.proxy.upstreamSessions()).toBe(2);
      // Her session on A still holds her state.
      expect(await alice.call('remember', { value: 'still on A' })).toEqual({
        remembered: 'still on A',
      });

      // A 2026-07-28 client (no session) reaching both replicas gets an upstream session on each:
      // what it leaves on A is not on B.
      await using carolA = await agentModern(a.listener.mcpUrl, 'carol', ALL, CAROL);
      await using carolB = await agentModern(b.listener.mcpUrl, 'carol', ALL, CAROL);
      expect(await carolA.call('remember', { value: 'carol on A' })).toEqual({
        remembered: 'carol on A',
      });
      expect(await carolB.call('recall')).toEqual({ remembered: null });
      expect(await carolA.call('recall')).toEqual({ remembered: 'carol on A' });
      expect([a.proxy.upstreamSessions(), b.proxy.upstreamSessions()]).toEqual([2, 3]);
      const allSpawned = upstreamPids().filter((pid) => !before.includes(pid));
      expect(allSpawned).toHaveLength(5);

      // A is closed: its clients' upstream processes (Alice's, Carol's) are gone; B's three remain.
      const pidsBefore = upstreamPids();
      await a.proxy.close();
      await until(() => upstreamPids().length === pidsBefore.length - 2);
      expect(a.proxy.upstreamSessions()).toBe(0);
      const left = upstreamPids().filter((pid) => !before.includes(pid));
      expect(left).toHaveLength(3);
      expect(left.every((pid) => pidsBefore.includes(pid))).toBe(true);

      // B keeps serving its clients, their state intact, and a client that was on A starts over.
      expect(await bob.call('recall')).toEqual({ remembered: 'bob’s connection' });
      expect(await carolB.call('recall')).toEqual({ remembered: null });
      await using aliceAgain = await agentV1(b.listener.mcpUrl, 'alice', ALL, ALICE);
      expect(await aliceAgain.call('recall')).toEqual({ remembered: null });
      expect(b.proxy.upstreamSessions()).toBe(4);
      await alice.raw.close().catch(() => {});
    } finally {
      await storeA.close();
      await storeB.close();
    }
  });
});
