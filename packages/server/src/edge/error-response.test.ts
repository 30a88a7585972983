import { ErrorBodySchema, S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { toErrorBody } from './error-response.js';

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
