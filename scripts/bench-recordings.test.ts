/**
 * The benchmark's committed recordings (bench/fixtures): the Python reference's control-plane
 * answers that section 1 counts, and the tools/list of a past revision that section 10 compares
 * with. Each must say where it came from, cover what the benchmark asks of it, and (for the
 * reference, where it can be run) be exactly what its recording command writes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import {
  pythonReferenceMissing,
  REFERENCE_PUBLIC_PORT,
  REFERENCE_RECORDING_COMMAND,
  readReferenceRecording,
  recordReferenceControlPlane,
  referenceCallKey,
} from '../bench/src/python-reference.js';
import { referenceCalls } from '../bench/src/token-inputs.js';
import { readToolsListRecording } from '../bench/src/tools-list-recording.js';

const benchScripts = (
  JSON.parse(readFileSync(new URL('../bench/package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/** The bench script a recording's command runs (`pnpm --filter @s2sp/bench <script>`). */
const scriptOf = (command: string) =>
  /pnpm --filter @s2sp\/bench (record:[\w-]+)/.exec(command)?.[1];

describe("the Python reference's recorded control-plane answers", () => {
  const recording = readReferenceRecording();

  it('name the reference commit, its files and the command that wrote them', () => {
    expect(recording.reference.repository).toBe('mcp-sd/python-sdk');
    expect(recording.reference.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(recording.reference.files).sort()).toEqual([
      'src/mcp_sd/direct_channel.py',
      'src/mcp_sd/server.py',
    ]);
    for (const hash of Object.values(recording.reference.files))
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(recording.command).toBe(REFERENCE_RECORDING_COMMAND);
    expect(benchScripts[scriptOf(recording.command) ?? '']).toBe(
      'node dist/record-python-reference.js',
    );
  });

  it("answer every call section 1 makes, in the reference's own result form", () => {
    const calls = referenceCalls();
    expect(recording.calls.map((c) => c.input)).toEqual(calls.map(referenceCallKey));
    for (const [i, call] of calls.entries()) {
      const answer = JSON.parse(recording.calls[i]?.text ?? '');
      if (call.abstractDomains === null) {
        expect(answer).toHaveLength(call.rows.length);
        continue;
      }
      expect(answer.total_rows).toBe(call.rows.length);
      expect(answer.abstract_domains).toEqual(call.abstractDomains);
      expect(answer.abstract).toHaveLength(call.rows.length);
      expect(new URL(answer.resource_url).port).toBe(String(REFERENCE_PUBLIC_PORT));
    }
  });

  it('are what the recording script writes from the reference, where the reference is here', () => {
    const missing = pythonReferenceMissing('control plane');
    if (missing !== undefined) {
      // Not here (CI): the two tests above are all that can be checked.
      expect(typeof missing).toBe('string');
      return;
    }
    const again = recordReferenceControlPlane(referenceCalls(), recording.reference.commit);
    // The Python version is provenance, not output: another 3.x writes the same texts.
    expect({ ...again, reference: { ...again.reference, python: '' } }).toEqual({
      ...recording,
      reference: { ...recording.reference, python: '' },
    });
  });

  it('stand in for the reference where it is absent, and a call they lack has no text', async () => {
    vi.stubEnv('S2SP_PY_REFERENCE', '/nonexistent/mcp_sd/direct_channel.py');
    vi.resetModules();
    try {
      const absent = await import('../bench/src/python-reference.js');
      expect(absent.pythonReferenceMissing('control plane')).toBeTypeOf('string');
      const [plain, twoColumns] = referenceCalls();
      if (!plain || !twoColumns) throw new Error('section 1 makes no calls');
      const texts = absent.referenceTexts([plain, twoColumns]);
      expect(texts.text(twoColumns)).toBe(recording.calls[1]?.text);
      expect(texts.text({ ...twoColumns, abstractDomains: ['event', 'headline'] })).toBeUndefined();
      expect(texts.text({ ...twoColumns, rows: twoColumns.rows.slice(1) })).toBeUndefined();
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});

describe("section 10's recorded tools/list of weather-alerts before abstracts were bounded", () => {
  it('names its full commit and the command that wrote it, and holds the listing', () => {
    const before = readToolsListRecording('66424f3');
    expect(before.app).toBe('@s2sp/app-weather-alerts');
    expect(before.commit).toMatch(/^66424f3[0-9a-f]{33}$/);
    expect(before.command).toMatch(/ 66424f3$/);
    expect(benchScripts[scriptOf(before.command) ?? '']).toBe('node dist/record-tools-list.js');
    expect(before.listTools.tools.map((tool) => tool.name).sort()).toEqual([
      'get_alerts',
      'get_alerts_for_point',
      'get_forecast',
    ]);
    expect(before.instructions.length).toBeGreaterThan(0);
  });
});
