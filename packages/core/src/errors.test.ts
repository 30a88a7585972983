import { describe, expect, it } from 'vitest';
import { S2SP_ERROR_STATUS, S2SPError } from './errors.js';

describe('S2SPError', () => {
  it('carries a stable code, its HTTP status, data and cause', () => {
    const cause = new Error('low level');
    const error = new S2SPError('not_found', 'gone', { cause, data: { id: 3 } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('S2SPError');
    expect(error.code).toBe('not_found');
    expect(error.status).toBe(404);
    expect(error.data).toEqual({ id: 3 });
    expect(error.cause).toBe(cause);
  });

  it('is recognised across copies of the package through a registry symbol', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('s2sp.error')]: true,
      code: 'timeout',
    });
    expect(S2SPError.isInstance(foreign)).toBe(true);
    expect(S2SPError.isInstance(new Error('plain'))).toBe(false);
    expect(S2SPError.isInstance(null)).toBe(false);
    expect(S2SPError.isInstance('not_found')).toBe(false);
  });

  it('maps every code to a status, and the wire codes to the statuses of PROTOCOL §3', () => {
    for (const status of Object.values(S2SP_ERROR_STATUS))
      expect(status).toBeGreaterThanOrEqual(400);
    expect(S2SP_ERROR_STATUS).toMatchObject({
      invalid_request: 400,
      not_found: 404,
      method_not_allowed: 405,
      payload_too_large: 413,
      unsupported_media_type: 415,
      internal: 500,
      unavailable: 503,
    });
  });
});

describe('S2SPError.codeOf', () => {
  it('is the code of an S2SPError and tool_error for anything else', () => {
    expect(S2SPError.codeOf(new S2SPError('not_found', 'gone'))).toBe('not_found');
    expect(S2SPError.codeOf(new TypeError('boom'))).toBe('tool_error');
    expect(S2SPError.codeOf('a string')).toBe('tool_error');
  });
});
