import type { Reporter, TestCase } from 'vitest/node';
import { type ProgressLine, startProgressLine } from '../packages/test-utils/src/progress-line.js';

/**
 * Says which test is still running when one takes long (a reliability figure, a soak run) and
 * vitest's own output is not live: on a pipe with `CI` set or `S2SP_PROGRESS=1`, a line every
 * 30 s per test running for more than 10 s (`startProgressLine` decides where to write). On a
 * terminal vitest already shows the running tests, so this stays quiet.
 */
export default class ProgressReporter implements Reporter {
  private readonly running = new Map<string, ProgressLine>();

  onTestCaseReady(test: TestCase): void {
    if (process.stderr.isTTY) return;
    this.running.set(
      test.id,
      startProgressLine(`still running: ${test.project.name} › ${test.fullName}`, {
        afterMs: 10_000,
      }),
    );
  }

  onTestCaseResult(test: TestCase): void {
    this.running.get(test.id)?.stop();
    this.running.delete(test.id);
  }

  onTestRunEnd(): void {
    for (const line of this.running.values()) line.stop();
    this.running.clear();
  }
}
