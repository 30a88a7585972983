import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { probeEra } from './era-probe.js';
import { createStartDeadline } from './start-deadline.js';
import { openTransport, type StdioUpstream } from './upstream-target.js';

const fixture = (name: string): StdioUpstream => ({
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL(`../../test/fixtures/${name}`, import.meta.url))],
});

const probe = (target: StdioUpstream, startupMs = 20_000) =>
  probeEra({
    clientInfo: { name: 'era-probe-test', version: '1.0.0' },
    open: () => openTransport(target, () => {}, { maxBytes: 1 << 20, onDropped: () => {} }, 2),
    stdio: true,
    deadline: createStartDeadline(startupMs),
  });

describe('probeEra', () => {
  it('finds a 2026-07-28-only server modern, with its server/discover answer', async () => {
    expect(await probe(fixture('modern-only-server.mjs'))).toMatchObject({
      kind: 'modern',
      discover: { capabilities: { tools: {} } },
    });
  });

  it('finds a 2025-era server legacy', async () => {
    expect(await probe(fixture('table-server.mjs'))).toEqual({ kind: 'legacy' });
  });

  it('finds no verdict once the start-up limit has passed', async () => {
    // No server answers within 1 ms (a slow one of either era): the start fails, no guess.
    await expect(probe(fixture('table-server.mjs'), 1)).rejects.toBeInstanceOf(Error);
  });
});
