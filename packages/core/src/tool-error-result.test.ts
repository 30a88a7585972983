import { describe, expect, it } from 'vitest';
import { S2SPError } from './errors.js';
import { PROTOCOL } from './protocol.js';
import { toolErrorResult } from './tool-error-result.js';

const ERROR_CODE_META = PROTOCOL.errorCodeMeta;

describe('toolErrorResult', () => {
  it('carries an S2SP error code in _meta and the message as text', () => {
    const result = toolErrorResult(new S2SPError('not_found', 'gone; call again'));
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'gone; call again' }],
      _meta: { [ERROR_CODE_META]: 'not_found' },
    });
  });

  it('labels any other error tool_error, and non-errors by their string', () => {
    expect(toolErrorResult(new TypeError('boom'))._meta[ERROR_CODE_META]).toBe('tool_error');
    expect(toolErrorResult('plain').content[0]?.text).toBe('plain');
  });
});
