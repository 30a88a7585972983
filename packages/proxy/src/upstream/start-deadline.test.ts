import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode, McpError } from '../mcp-sdk.js';
import { createStartDeadline } from './start-deadline.js';

describe('createStartDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts down to 0, and never gives the SDK a timeout of 0', () => {
    vi.useFakeTimers();
    const deadline = createStartDeadline(1000);
    expect(deadline.left()).toBe(1000);
    vi.advanceTimersByTime(400);
    expect(deadline.left()).toBe(600);
    expect(deadline.options().timeout).toBe(600);
    vi.advanceTimersByTime(5000);
    expect(deadline.left()).toBe(0);
    expect(deadline.options().timeout).toBe(1);
  });

  it('turns a failure past the deadline into a timeout naming the limit, and keeps a timeout', () => {
    const deadline = createStartDeadline(2500);
    expect(deadline.timedOut(new Error('aborted'))).toMatchObject({
      code: ErrorCode.RequestTimeout,
      data: { timeout: 2500 },
    });
    const own = new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: 7 });
    expect(deadline.timedOut(own)).toBe(own);
  });
});
