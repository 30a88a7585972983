import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { type StartFailure, startFailure, startFailureOf } from './start-failures.js';

const FACTS: StartFailure = {
  label: '"node"',
  said: 'Connection closed',
  stderr: 'Error: no such table',
  timedOut: false,
  limitSeconds: 60,
};

describe('startFailure', () => {
  it('is unavailable, carries its cause, and keeps its facts for the CLI', () => {
    const cause = new Error('closed');
    const failure = startFailure(FACTS, cause);
    expect(S2SPError.isInstance(failure)).toBe(true);
    expect(failure.code).toBe('unavailable');
    expect(failure.cause).toBe(cause);
    expect(startFailureOf(failure)).toBe(FACTS);
  });

  it('knows no facts of any other error', () => {
    expect(startFailureOf(new S2SPError('unavailable', 'The proxy is shutting down.'))).toBe(
      undefined,
    );
    expect(startFailureOf('text')).toBeUndefined();
    expect(startFailureOf(undefined)).toBeUndefined();
  });
});
