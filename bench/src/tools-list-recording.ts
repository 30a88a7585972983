import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A git revision's `tools/list` of weather-alerts, as `record-tools-list.ts` measured it: what the
 * official SDK client's `listTools()` returned and the instructions it received at initialisation.
 */
export interface ToolsListRecording {
  readonly app: '@s2sp/app-weather-alerts';
  /** The full commit the listing was taken at. */
  readonly commit: string;
  /** The command that wrote the file, from the repository's root. */
  readonly command: string;
  readonly listTools: { readonly tools: readonly { readonly name: string }[] };
  readonly instructions: string;
}

/** The command that records a revision's listing (the revision follows it). */
export const TOOLS_LIST_RECORDING_COMMAND =
  'pnpm --filter @s2sp/bench build && pnpm --filter @s2sp/bench record:tools-list';

/** Where the listing of `revision` (as given to the command) is kept. */
export function toolsListRecordingFile(revision: string): string {
  return fileURLToPath(
    new URL(`../fixtures/tools-list/weather-alerts-${revision}.json`, import.meta.url),
  );
}

/** The committed listing of `revision`, parsed. */
export function readToolsListRecording(revision: string): ToolsListRecording {
  return JSON.parse(readFileSync(toolsListRecordingFile(revision), 'utf8')) as ToolsListRecording;
}
