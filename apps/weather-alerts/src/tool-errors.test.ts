import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { NwsError } from './nws-error.js';
import { validInput, withNwsErrors } from './tool-errors.js';

async function codeOf(error: unknown): Promise<string> {
  try {
    await withNwsErrors(async () => {
      throw error;
    });
  } catch (thrown) {
    return S2SPError.isInstance(thrown) ? thrown.code : 'not an S2SPError';
  }
  return 'nothing thrown';
}

describe('tool error codes', () => {
  it('maps NWS failures to stable S2SP codes, keeping the message', async () => {
    expect(await codeOf(new NwsError('timeout', 't'))).toBe('timeout');
    expect(await codeOf(new NwsError('network', 'n'))).toBe('unavailable');
    expect(await codeOf(new NwsError('http', 'h', { status: 503 }))).toBe('unavailable');
    expect(await codeOf(new NwsError('http', 'h', { status: 429 }))).toBe('unavailable');
    expect(await codeOf(new NwsError('http', 'h', { status: 400 }))).toBe('invalid_request');
    expect(await codeOf(new NwsError('http', 'h', { status: 404 }))).toBe('invalid_request');
    expect(await codeOf(new NwsError('http', 'h', { status: 403 }))).toBe('upstream_error');
    expect(await codeOf(new NwsError('invalid_response', 'i'))).toBe('upstream_error');
    expect(await codeOf(new NwsError('forbidden_link', 'f'))).toBe('upstream_error');
    await expect(
      withNwsErrors(async () => {
        throw new NwsError('timeout', 'NWS did not answer');
      }),
    ).rejects.toThrow('NWS did not answer');
  });

  it('lets other errors through unchanged', async () => {
    const bug = new TypeError('x is undefined');
    await expect(
      withNwsErrors(async () => {
        throw bug;
      }),
    ).rejects.toBe(bug);
    expect(await withNwsErrors(async () => 7)).toBe(7);
  });

  it('turns a failed input check into invalid_request', () => {
    expect(validInput(() => 'TX')).toBe('TX');
    try {
      validInput(() => {
        throw new Error('"XX" is not an NWS area code.');
      });
      throw new Error('expected a throw');
    } catch (error) {
      expect(S2SPError.isInstance(error) && error.code).toBe('invalid_request');
      expect((error as Error).message).toBe('"XX" is not an NWS area code.');
    }
  });
});
