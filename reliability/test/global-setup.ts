// Runs once per `vitest run` of this project: before any test file it empties the figures file
// (one run, one set of figures); after the last one it writes results/RELIABILITY.md (with
// SOAK=1: RELIABILITY.soak.md) from what was recorded, whether or not every test passed, so a
// failed figure still shows in the report.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resetFigures } from '../src/figures.js';

const REPORT = fileURLToPath(new URL('../scripts/report.mjs', import.meta.url));

export default function setup(): () => void {
  resetFigures();
  return () => {
    try {
      const soak = process.env.SOAK === '1' ? ['--soak'] : [];
      execFileSync(process.execPath, [REPORT, ...soak], { stdio: 'pipe' });
    } catch {
      // Nothing recorded (a filtered run): no report. The script says why when run by hand.
    }
  };
}
