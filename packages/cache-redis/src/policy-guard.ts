/**
 * What the store does about Redis's `maxmemory-policy` (see eviction-policy): check it at start-up
 * and before puts until it is known, log a wrong one once, and with `"enforce"` refuse puts until
 * it is fixed (looking again every 30 s, or at once on an explicit check).
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { checkEvictionPolicy, type EvictionPolicyReport } from './eviction-policy.js';
import type { RedisConnection } from './redis-connection.js';
import { toStoreError, withTimeout } from './store-errors.js';
import type { StoreLogger } from './store-logger.js';
import type { EvictionPolicyCheck } from './store-options.js';

/** How often `evictionPolicyCheck: "enforce"` looks again after finding a wrong policy. */
const POLICY_RECHECK_MS = 30_000;

/** The policy state of one store. */
export interface PolicyGuard {
  /**
   * Resolves when puts may go ahead.
   * @throws S2SPError `invalid_config` (enforce, wrong policy) or `unavailable` (enforce, Redis
   *   unreachable)
   */
  ensure(): Promise<void>;
  /** Checks now, remembers the answer, and returns it. */
  checkNow(): Promise<EvictionPolicyReport>;
}

/** Options of {@link createPolicyGuard}. */
export interface PolicyGuardOptions {
  readonly connection: RedisConnection;
  readonly mode: EvictionPolicyCheck;
  readonly commandTimeoutMs: number;
  readonly logger: StoreLogger;
}

/** A short label of an error for a log line (its code or class, never its message). */
export function errorLabel(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { code, name } = error as { code?: unknown; name?: unknown };
  return typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error';
}

/** Creates the policy state of a store. */
export function createPolicyGuard(options: PolicyGuardOptions): PolicyGuard {
  const { connection, mode, commandTimeoutMs, logger } = options;
  let policy: { ok: boolean; at: number; message?: string } | undefined;
  let pending: Promise<void> | undefined;

  const read = () =>
    withTimeout(
      connection.masters().then((masters) => checkEvictionPolicy(masters)),
      commandTimeoutMs,
    );
  const remember = (report: EvictionPolicyReport) => {
    policy = { ok: report.ok, at: Date.now(), ...(report.message && { message: report.message }) };
  };

  const run = async (): Promise<void> => {
    let report: EvictionPolicyReport;
    try {
      report = await read();
    } catch (error) {
      const mapped = toStoreError(error, 'check');
      if (mapped.code === 'unavailable') {
        if (mode === 'enforce') throw mapped;
        return; // look again at the next put
      }
      // INFO refused (an ACL, a managed service): say so once, then stop asking.
      const message =
        'Cannot read maxmemory-policy from Redis (INFO was refused). Make sure it is noeviction, then set evictionPolicyCheck: "off".';
      policy = { ok: mode !== 'enforce', at: Date.now(), message };
      logger.warn(message, { reason: errorLabel(error) });
      return;
    }
    remember(report);
    if (!report.ok && report.message) {
      if (mode === 'warn') logger.warn(report.message);
      else logger.error(report.message);
    }
  };

  return {
    async ensure() {
      if (mode === 'off') return;
      const stale =
        policy === undefined ||
        (!policy.ok && mode === 'enforce' && Date.now() - policy.at > POLICY_RECHECK_MS);
      if (stale) {
        pending ??= run().finally(() => {
          pending = undefined;
        });
        await pending;
      }
      if (policy && !policy.ok && mode === 'enforce') {
        throw new S2SPError(
          'invalid_config',
          policy.message ?? 'Redis maxmemory-policy must be noeviction.',
        );
      }
    },
    async checkNow() {
      let report: EvictionPolicyReport;
      try {
        report = await read();
      } catch (error) {
        throw toStoreError(error, 'check');
      }
      // A fixed policy takes effect at once for evictionPolicyCheck "enforce".
      remember(report);
      return report;
    },
  };
}
