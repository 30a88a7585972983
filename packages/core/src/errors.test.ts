import { describe, expect, it } from 'vitest';
import { S2SP_ERROR_CODES, S2SP_ERROR_STATUS, S2SPError } from './errors.js';
import { ErrorBodySchema, toErrorBody } from './wire-error.js';

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
    expect(S2SP_ERROR_CODES).toHaveLength(Object.keys(S2SP_ERROR_STATUS).length);
    for (const code of S2SP_ERROR_CODES)
      expect(S2SP_ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
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

describe('toErrorBody', () => {
  it('renders an S2SPError in the one wire shape with its status', () => {
    const { status, body } = toErrorBody(new S2SPError('payload_too_large', 'too big'));
    expect(status).toBe(413);
    expect(body).toEqual({ error: { code: 'payload_too_large', message: 'too big', status: 413 } });
    expect(ErrorBodySchema.parse(body)).toEqual(body);
  });

  it('hides the message of unknown throws and of internal and config errors', () => {
    for (const thrown of [
      new TypeError('secret path /etc/x'),
      new S2SPError('internal', 'db password wrong'),
      new S2SPError('invalid_config', 'key at /srv'),
      'a string',
    ]) {
      const { status, body } = toErrorBody(thrown);
      expect(status).toBe(500);
      expect(body.error.code).toBe('internal');
      expect(body.error.message).not.toMatch(/secret|password|\/srv|a string/);
    }
  });
});
