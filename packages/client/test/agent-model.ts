/**
 * The scripted "LLM" both adapter tests use: it decides from what it reads, as a model would.
 * Step 1: ask the resource tool for two abstract columns. Step 2: keep the flood warnings and
 * pass them, with the resource_url it was given, to the consumer. Step 3: answer.
 */

/** A tool call the scripted model wants to make. */
export interface PlannedCall {
  readonly toolName: string;
  readonly args: Record<string, unknown>;
}

/**
 * Plans the next step from the tool results the model has seen so far (their texts, oldest
 * first). Returns `undefined` when the model is done.
 */
export function planNextStep(
  toolResults: readonly string[],
  mode: 'sync' | 'async',
): PlannedCall | undefined {
  if (toolResults.length === 0) {
    return { toolName: 'get_alerts', args: { abstract_domains: 'event,severity', mode } };
  }
  if (toolResults.length === 1) {
    const s2sp = JSON.parse(toolResults[0] ?? '') as {
      abstract: { _row_id: number; event: string }[];
      resource_url?: string;
    };
    const floods = s2sp.abstract.filter((row) => row.event === 'Flood Warning');
    // Without an S2SP layer a sync result has no resource_url: the call then carries none.
    const access = s2sp.resource_url === undefined ? {} : { resource_url: s2sp.resource_url };
    return {
      toolName: 'summarise_alerts',
      args: { abstract_data: JSON.stringify(floods), ...access },
    };
  }
  return undefined;
}

/** The ids the scripted model keeps: the flood warnings of the pipeline table. */
export const FLOOD_IDS = [0, 3, 6, 9];
