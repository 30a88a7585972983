import { describe, expect, it, vi } from 'vitest';
import { startProgressLine } from './progress-line.js';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream,
  };
}

describe('startProgressLine', () => {
  it('on a terminal, redraws label, seconds and detail in place after afterMs, and restores the label', () => {
    vi.useFakeTimers();
    try {
      const { stream, written } = fakeStream(true);
      const line = startProgressLine('running x…', { stream, env: {}, afterMs: 3000 });
      vi.advanceTimersByTime(2999);
      expect(written).toEqual([]);
      line.update('10 of 20');
      vi.advanceTimersByTime(2001);
      line.stop();
      vi.advanceTimersByTime(5000);
      expect(written).toEqual([
        '\r\x1b[2Krunning x… 3 s, 10 of 20',
        '\r\x1b[2Krunning x… 4 s, 10 of 20',
        '\r\x1b[2Krunning x… 5 s, 10 of 20',
        '\r\x1b[2Krunning x…',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes nothing to a pipe unless CI or S2SP_PROGRESS=1 asks, and S2SP_PROGRESS=0 silences a terminal', () => {
    vi.useFakeTimers();
    try {
      const pipe = fakeStream(false);
      startProgressLine('a', { stream: pipe.stream, env: {}, afterMs: 0 });
      const ci = fakeStream(false);
      const ciLine = startProgressLine('b', { stream: ci.stream, env: { CI: 'true' }, afterMs: 0 });
      const off = fakeStream(true);
      startProgressLine('c', { stream: off.stream, env: { S2SP_PROGRESS: '0' }, afterMs: 0 });
      vi.advanceTimersByTime(30_000);
      ciLine.stop();
      expect(pipe.written).toEqual([]);
      expect(off.written).toEqual([]);
      expect(ci.written).toEqual(['b 0 s\n', 'b 30 s\n']);
    } finally {
      vi.useRealTimers();
    }
  });
});
