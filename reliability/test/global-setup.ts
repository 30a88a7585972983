// Runs once per `vitest run` of this project: before any test file it empties the figures file
// (one run, one set of figures) and describes the run in results/run.json (commit, command, size,
// machine, load; run.soak.json with SOAK=1); after the last one it adds the end time and load and
// writes results/RELIABILITY.md (with SOAK=1: RELIABILITY.soak.md) from what was recorded, whether
// or not every test passed, so a failed figure still shows in the report.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { endRun, startRun } from '../../scripts/run-info.mjs';
import { RUN_FILE, resetFigures } from '../src/figures.js';

const REPORT = fileURLToPath(new URL('../scripts/report.mjs', import.meta.url));

// The command as typed, as near as the process can tell: the size knobs from the environment, then
// vitest's own arguments.
function command(): string {
  const knobs = ['SOAK', 'SOAK_MINUTES', 'SOAK_RATE']
    .filter((name) => process.env[name] !== undefined)
    .map((name) => `${name}=${process.env[name]}`);
  return [...knobs, 'vitest', ...process.argv.slice(2)].join(' ');
}

export default function setup(): () => void {
  resetFigures();
  const run = startRun({ command: command(), size: process.env.SOAK === '1' ? 'soak' : 'ci' });
  writeFileSync(RUN_FILE, `${JSON.stringify(run, null, 2)}\n`);
  return () => {
    writeFileSync(RUN_FILE, `${JSON.stringify(endRun(run), null, 2)}\n`);
    try {
      const soak = process.env.SOAK === '1' ? ['--soak'] : [];
      execFileSync(process.execPath, [REPORT, ...soak], { stdio: 'pipe' });
    } catch {
      // Nothing recorded (a filtered run): no report. The script says why when run by hand.
    }
  };
}
