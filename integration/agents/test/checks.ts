/** The assertions every framework's agent-loop test makes. */
import { DdiBuffer } from '@s2sp/client';
import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { drawChartCalls, leaked, type Pipeline } from './pipeline.js';
import type { ModelLog, Script } from './scripted-model.js';

/**
 * True if `text` holds `needle` as written or JSON-escaped once or twice: frameworks differ in
 * how many times they encode a tool result before the model reads it.
 */
export function containsText(text: string | undefined, needle: string): boolean {
  const once = JSON.stringify(needle).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [needle, once, twice].some((form) => text?.includes(form) === true);
}

/** Every body fragment of every row. */
export function allFragments(pipeline: Pipeline): Set<string> {
  return new Set([...pipeline.bodyFragments.values()].flat());
}

/** Body fragments found in any request the model received. */
export function leakedToModel(model: ModelLog, pipeline: Pipeline): string[] {
  const fragments = allFragments(pipeline);
  return [...new Set(model.requests.flatMap((request) => leaked(request, fragments)))];
}

/** Characters of the tool results the model read in its last request. */
export function toolResultChars(model: ModelLog): number {
  return model.lastResults.reduce((sum, text) => sum + text.length, 0);
}

/**
 * The model read the abstract and no body value; chart-consumer received every body value of
 * the rows the model chose, through one draw_chart call with body_data and no resource_url.
 */
export function expectBodyBypassedModel(model: ModelLog, pipeline: Pipeline): void {
  expect(pipeline.keptIds).toHaveLength(13);
  expect(allFragments(pipeline).size).toBeGreaterThan(100);
  // The model saw the abstract (it chose rows from it) and a ddi:// handle…
  expect(containsText(model.lastResults[0], 'Heat Advisory')).toBe(true);
  expect(containsText(model.lastResults[0], 'ddi://')).toBe(true);
  // …and no body value in any request, agent-loop or not.
  expect(leakedToModel(model, pipeline)).toEqual([]);

  const calls = drawChartCalls(pipeline);
  expect(calls).toHaveLength(1);
  const call = calls[0] ?? {};
  expect(call.resource_url).toBeUndefined();
  expect(typeof call.body_data).toBe('string');
  const rows = JSON.parse(String(call.body_data)) as { _row_id: number }[];
  expect(rows.map((row) => row._row_id)).toEqual(pipeline.keptIds);
  const received = String(call.body_data);
  const expected = pipeline.keptIds.flatMap((id) => pipeline.bodyFragments.get(id) ?? []);
  expect(expected.length).toBeGreaterThan(100);
  expect(expected.filter((fragment) => !received.includes(fragment))).toEqual([]);
  // The chart summary came back to the model.
  expect(containsText(model.lastResults[1], '"rows_charted":13')).toBe(true);
}

/** The advice a stale ddi:// handle gets, with its code, straight from the buffer. */
export function staleHandleError(): S2SPError {
  try {
    new DdiBuffer().take('ddi://stale');
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
  }
  throw new Error('DdiBuffer.take accepted an unknown handle');
}

/**
 * The second draw_chart call with the same handle never reached chart-consumer, and the model
 * read the not_found advice instead.
 */
export function expectStaleHandleRefused(model: ModelLog, pipeline: Pipeline): void {
  const error = staleHandleError();
  expect(error.code).toBe('not_found');
  expect(drawChartCalls(pipeline)).toHaveLength(1);
  expect(model.lastResults).toHaveLength(3);
  expect(containsText(model.lastResults[2], error.message)).toBe(true);
  expect(leakedToModel(model, pipeline)).toEqual([]);
}

/** What one run of a framework's agent loop left behind. */
export interface LoopRun {
  readonly output: unknown;
  readonly model: ModelLog;
  readonly pipeline: Pipeline;
  readonly pending: number;
}

/**
 * The agent-loop suite for frameworks driven by the Chat Completions model: the main check,
 * variants of it, the stale handle and the control without the adapter.
 */
export function describeAgentLoop(
  framework: string,
  run: (options: { adapter: boolean; script?: Script }) => Promise<LoopRun>,
  variants: { title: string; run: () => Promise<LoopRun> }[] = [],
): void {
  describe(`${framework} agent loop with withS2SP, sync mode`, () => {
    it('never shows the model a body value, while chart-consumer receives every one', async () => {
      const { output, model, pipeline, pending } = await run({ adapter: true });
      expect(output).toBe('Done.');
      expect(model.requests).toHaveLength(3);
      expectBodyBypassedModel(model, pipeline);
      expect(pending).toBe(0);
    });

    for (const variant of variants) {
      it(variant.title, async () => {
        const { output, model, pipeline } = await variant.run();
        expect(output).toBe('Done.');
        expectBodyBypassedModel(model, pipeline);
      });
    }

    it('refuses a used handle with the not_found advice, without calling chart-consumer', async () => {
      const { model, pipeline } = await run({ adapter: true, script: { reuseHandle: true } });
      expectStaleHandleRefused(model, pipeline);
    });
  });

  describe(`${framework} control`, () => {
    it('without withS2SP, body values do reach the model (so the check above can fail)', async () => {
      const { model, pipeline } = await run({ adapter: false });
      expect(leakedToModel(model, pipeline).length).toBeGreaterThan(100);
      expect(toolResultChars(model)).toBeGreaterThan(50_000);
      // The model had no resource_url to pass, so chart-consumer got no body at all.
      expect(drawChartCalls(pipeline)[0]?.body_data).toBeUndefined();
    });
  });
}
