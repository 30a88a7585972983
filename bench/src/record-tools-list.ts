/**
 * Records weather-alerts' `tools/list` and instructions at a git revision of this repository, for
 * section 10 (`large-tables.ts`) to compare today's listing with: the revision is exported from
 * git into a temporary folder, the weather app and what it depends on are installed and built
 * there, and its own `main.js --stdio` is listed by the official SDK client. Run from the
 * repository's root:
 *
 *   pnpm --filter @s2sp/bench build && pnpm --filter @s2sp/bench record:tools-list 66424f3
 *
 * It writes bench/fixtures/tools-list/weather-alerts-<revision>.json (see `toolsListRecording`).
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  TOOLS_LIST_RECORDING_COMMAND,
  type ToolsListRecording,
  toolsListRecordingFile,
} from './tools-list-recording.js';

const revision = process.argv[2];
if (!revision) throw new Error('usage: record-tools-list <git revision>');
const commit = execFileSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], {
  encoding: 'utf8',
}).trim();
const dir = mkdtempSync(join(tmpdir(), `s2sp-tools-list-${commit.slice(0, 7)}-`));
try {
  // From the top: in a subfolder, git archive would export only that folder.
  const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  execSync(`git archive ${commit} | tar -x -C ${JSON.stringify(dir)}`, {
    cwd: top,
    stdio: 'inherit',
  });
  const filter = '--filter=@s2sp/app-weather-alerts...';
  // The pnpm running this script (`npm_execpath`), not whatever `pnpm` a corepack shim resolves to.
  // Without the npm_* settings `pnpm run` gave this script, which name this repository's workspace.
  const pnpm = process.env.npm_execpath;
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm|pnpm)_/i.test(key)),
  );
  const run = (args: string[]) =>
    pnpm
      ? execFileSync(process.execPath, [pnpm, ...args], { cwd: dir, env, stdio: 'inherit' })
      : execFileSync('pnpm', args, { cwd: dir, env, stdio: 'inherit' });
  run(['install', '--frozen-lockfile', '--prefer-offline', filter]);
  run(['turbo', 'run', 'build', filter, '--output-logs=errors-only']);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(dir, 'apps/weather-alerts/dist/main.js'), '--stdio'],
      // Its defaults, not this shell's settings: nothing of the environment shapes the listing.
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
      stderr: 'ignore',
    }),
  );
  try {
    const recording: ToolsListRecording = {
      app: '@s2sp/app-weather-alerts',
      commit,
      command: `${TOOLS_LIST_RECORDING_COMMAND} ${revision}`,
      listTools: await client.listTools(),
      instructions: client.getInstructions() ?? '',
    };
    const file = toolsListRecordingFile(revision);
    writeFileSync(file, `${JSON.stringify(recording, null, 2)}\n`);
    console.log(`${recording.listTools.tools.length} tools written to ${file}`);
  } finally {
    await client.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
