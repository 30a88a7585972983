/**
 * Issue 41's shares in section 2, judged in alternated blocks: each block runs the store and what
 * it is judged against back to back, the order swapped every block, and the share is the median of
 * the blocks' shares. A floor measured a minute before the store moves by ±20% on this machine,
 * more than the margin being judged (section 2's runs minutes apart put the memory store at
 * 79–116% of its floor across invocations).
 *
 * @module
 */

import type { Plan } from './data-plane.js';
import { type Lab, loadAverage, type ServerKind, STORE_NAME } from './lab.js';
import { repeatLoad } from './measure.js';
import type { BenchRow } from './report.js';
import { median } from './stats.js';

/** The memory store's share of the floor at one request at a time (issue 41), at these sizes. */
const NEAR_FLOOR = 0.9;
const NEAR_FLOOR_SIZES = new Set([1000, 10_000]);

/** A share issue 41 sets targets on: a store, what it is judged against, where and how high. */
interface Pairing {
  readonly kind: 'memory' | 'redis' | 'redis-peer';
  readonly against: {
    readonly kind: ServerKind;
    readonly fresh?: boolean;
    readonly deleted?: boolean;
  };
  readonly name: string;
  readonly sizes: ReadonlySet<number>;
  /** The target at each concurrency measured; `undefined`: measured for reading, not judged. */
  readonly bound: ReadonlyMap<number, number | undefined>;
}

/** The Redis store's targets against raw Redis at each concurrency judged. */
const OF_RAW_REDIS: ReadonlyMap<number, number> = new Map([
  [1, 0.9],
  [16, 0.9],
  [64, 0.85],
]);

const PAIRINGS: readonly Pairing[] = [
  {
    kind: 'memory',
    against: { kind: 'floor' },
    name: 'memory store vs the floor',
    sizes: NEAR_FLOOR_SIZES,
    bound: new Map([[1, NEAR_FLOOR]]),
  },
  // Raw Redis reading what a redemption reads: a value written once and never read before (one
  // hot key stays in the CPU's caches: Redis serves it ~2× faster). Both ways a Redis store
  // redeems: the tables it wrote (near cache), and another replica's (read from Redis).
  ...(['redis', 'redis-peer'] as const).map((kind) => ({
    kind,
    against: { kind: 'raw-redis', fresh: true } as const,
    name: `${STORE_NAME[kind]} vs raw Redis (fresh keys)`,
    sizes: NEAR_FLOOR_SIZES,
    bound: OF_RAW_REDIS,
  })),
  // The same read against raw Redis deleting what it reads (GETDEL), as single use must: what of
  // the share above is Redis freeing the table, which a plain GET never pays for. Not judged.
  {
    kind: 'redis-peer',
    against: { kind: 'raw-redis', fresh: true, deleted: true },
    name: `${STORE_NAME['redis-peer']} vs raw Redis (GETDEL of fresh keys)`,
    sizes: NEAR_FLOOR_SIZES,
    bound: new Map([...OF_RAW_REDIS.keys()].map((c) => [c, undefined])),
  },
];

/** Alternated blocks a paired share is the median of (issue 41: medians of five runs or more). */
const PAIRED_BLOCKS = 7;

/** The pairing that judges `kind` against `against` at this size and concurrency, if any. */
export function pairedAt(
  kind: ServerKind,
  against: ServerKind,
  size: number,
  concurrency: number,
): Pairing | undefined {
  return PAIRINGS.find(
    (p) =>
      p.kind === kind &&
      p.against.kind === against &&
      p.sizes.has(size) &&
      p.bound.get(concurrency) !== undefined,
  );
}

/**
 * The shares issue 41 judges, each the median of {@link PAIRED_BLOCKS} alternated blocks (at least
 * `runs`) of the store and what it is judged against (see {@link PAIRINGS}), as rows of `section`.
 */
export async function pairedShares(
  section: string,
  lab: Lab,
  plan: Plan,
  label: string,
  bodyBytes: number,
  runs: number,
): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  const blocks = Math.max(PAIRED_BLOCKS, runs);
  for (const pairing of PAIRINGS) {
    const { kind, against } = pairing;
    if (!pairing.sizes.has(plan.size) || !lab.servers.has(kind) || !lab.servers.has(against.kind))
      continue;
    for (const [concurrency, bound] of pairing.bound) {
      if (!plan.concurrency.includes(concurrency)) continue;
      const requests = plan.requests(concurrency);
      const once = async (k: ServerKind, how?: Pairing['against']) => {
        const { mbps } = await repeatLoad(
          lab,
          k,
          {
            concurrency,
            requests,
            ...(how?.fresh && { fresh: true }),
            ...(how?.deleted && { deleted: true }),
          },
          1,
          bodyBytes,
        );
        // Side by side, one server's leftovers in a shared Redis would fall on the other's block.
        await lab.servers.get(k)?.process.call({ op: 'settle' });
        return mbps;
      };
      const shares: number[] = [];
      for (let i = 0; i < blocks; i++) {
        // Swapped every block: a machine that slows down during a block favours neither side.
        const [mine, theirs] =
          i % 2 === 0
            ? [await once(kind), await once(against.kind, against)]
            : await once(against.kind, against).then(async (t) => [await once(kind), t]);
        shares.push((mine as number) / (theirs as number));
      }
      const judged = median(shares);
      out.push({
        section,
        name: `${label}: ${pairing.name}, c=${concurrency}, paired`,
        how: `${blocks} alternated blocks of ${requests} requests each: the data plane (${STORE_NAME[kind]}) and ${against.kind === 'floor' ? 'the bare node:http floor' : `node:http + a node-redis ${against.deleted ? 'GETDEL' : 'GET'} of a fresh key`} back to back, the order swapped every block; the median of the blocks' shares (min–max)`,
        values: {
          share: `${Math.round(judged * 100)}% (${Math.round(Math.min(...shares) * 100)}–${Math.round(Math.max(...shares) * 100)}%)`,
          load: loadAverage(),
        },
        ...(bound !== undefined && {
          target: `≥ ${Math.round(bound * 100)}% of ${against.kind === 'floor' ? 'floor' : 'raw Redis (fresh keys)'}`,
          met: judged >= bound,
        }),
        ...(against.kind === 'floor' &&
          judged > 1 && {
            note: `the median block put the store above its floor: the floor is not a floor on this machine at this size (a harness limit, not a result)`,
          }),
      });
    }
  }
  return out;
}
