import { describe, expect, it } from 'vitest';
import {
  ErrorCode,
  McpError,
  ModernProtocolError,
  ModernSdkError,
  ModernSdkErrorCode,
} from '../mcp-sdk.js';
import { asMcpError } from './modern-errors.js';

describe('asMcpError', () => {
  it('keeps an upstream JSON-RPC error’s code, message and data', () => {
    const error = asMcpError(
      new ModernProtocolError(-32021, 'Missing sampling', { requiredCapabilities: {} }),
    );
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32021, data: { requiredCapabilities: {} } });
    expect((error as McpError).message).toBe('MCP error -32021: Missing sampling');
  });

  it('keeps the meaning of a timeout and of a closed connection', () => {
    expect(
      asMcpError(new ModernSdkError(ModernSdkErrorCode.RequestTimeout, 'timed out')),
    ).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: true } });
    expect(
      asMcpError(new ModernSdkError(ModernSdkErrorCode.ConnectionClosed, 'closed')),
    ).toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  it('returns any other error as it is', () => {
    const other = new Error('socket hang up');
    expect(asMcpError(other)).toBe(other);
    const sdk = new ModernSdkError(ModernSdkErrorCode.SendFailed, 'send failed');
    expect(asMcpError(sdk)).toBe(sdk);
  });
});
