import { describe, expect, it } from 'vitest';
import {
  assertValidKeyPrefix,
  assertValidStorageKey,
  blockKey,
  budgetKey,
  entryKey,
  entryScanPattern,
  offsetsKey,
} from './key-layout.js';

// Redis's glob, enough of it to check our patterns: * ? and literal characters.
function globMatches(pattern: string, key: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`).test(key);
}

// The part of a key Redis Cluster hashes (CLUSTER KEYSLOT rules).
function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

const sha = 'a'.repeat(64);

describe('key layout', () => {
  it('puts an entry under the prefix, its storage key as the cluster hash tag', () => {
    expect(entryKey('s2sp:', sha)).toBe(`s2sp:{${sha}}`);
    expect(hashTag(entryKey('s2sp:', sha))).toBe(sha);
  });

  it('scans every entry of its prefix and nothing else', () => {
    const pattern = entryScanPattern('s2sp:');
    expect(pattern).toBe('s2sp:{*}');
    expect(globMatches(pattern, entryKey('s2sp:', sha))).toBe(true);
    expect(globMatches(pattern, entryKey('other:', sha))).toBe(false);
    expect(globMatches(pattern, `${budgetKey('s2sp:')}{#}`)).toBe(false);
    expect(globMatches(pattern, 's2sp:unrelated')).toBe(false);
    // An entry's blocks and offsets are not entries.
    expect(globMatches(pattern, blockKey(entryKey('s2sp:', sha), 12))).toBe(false);
    expect(globMatches(pattern, offsetsKey(entryKey('s2sp:', sha)))).toBe(false);
  });

  it("keeps blocks and offsets in the entry's cluster slot", () => {
    const entry = entryKey('s2sp:', sha);
    expect(blockKey(entry, 3)).toBe(`s2sp:{${sha}}:3`);
    expect(hashTag(blockKey(entry, 3))).toBe(sha);
    expect(hashTag(offsetsKey(entry))).toBe(sha);
  });

  it('accepts prefixes that are safe in a glob and a hash tag, and nothing else', () => {
    expect(() => assertValidKeyPrefix('s2sp:')).not.toThrow();
    expect(() => assertValidKeyPrefix('app/v2|s2sp-1.x_')).not.toThrow();
    for (const bad of ['', '{', '}', '*', '?', '[', '\\', ' ', 'é', 'x'.repeat(65)])
      expect(() => assertValidKeyPrefix(bad)).toThrow(/keyPrefix/);
  });

  it('accepts SHA-256 hex keys and refuses keys with braces or spaces', () => {
    expect(() => assertValidStorageKey(sha)).not.toThrow();
    expect(() => assertValidStorageKey('a')).not.toThrow();
    for (const bad of ['', '{x}', 'a b', 'a*', 'k'.repeat(129), 5])
      expect(() => assertValidStorageKey(bad)).toThrow(/storage key/);
  });
});
