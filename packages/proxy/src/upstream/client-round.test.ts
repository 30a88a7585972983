import { describe, expect, it } from 'vitest';
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY } from '../mcp-sdk.js';
import { clientRoundOf, withClientRound } from './client-round.js';

describe('clientRoundOf', () => {
  it('reads a 2026-07-28 request’s answers, state and envelope from its handler context', () => {
    const envelope = { [CLIENT_CAPABILITIES_META_KEY]: { elicitation: {} } };
    expect(
      clientRoundOf({
        mcpReq: { envelope, inputResponses: { asked: {} }, requestState: () => 'state' },
      }),
    ).toEqual({ envelope, inputResponses: { asked: {} }, requestState: 'state' });
    expect(clientRoundOf({ mcpReq: { envelope, requestState: () => undefined } })).toEqual({
      envelope,
    });
  });

  it('finds none in a 2025-era request (no envelope, or SDK v1’s context)', () => {
    expect(clientRoundOf({})).toBeUndefined();
    expect(clientRoundOf({ mcpReq: { requestState: () => 'state' } })).toBeUndefined();
  });
});

describe('withClientRound', () => {
  it('puts the answers, the state and the client’s capabilities and log level back', () => {
    const request = {
      method: 'tools/call',
      params: { name: 'ask', arguments: {}, _meta: { progressToken: 3 } },
    };
    const sent = withClientRound(request, {
      inputResponses: { asked: { action: 'accept' } },
      requestState: 'opaque',
      envelope: {
        [CLIENT_CAPABILITIES_META_KEY]: { sampling: {} },
        [LOG_LEVEL_META_KEY]: 'info',
        'io.modelcontextprotocol/clientInfo': { name: 'not forwarded', version: '0' },
      },
    });
    expect(sent).toEqual({
      method: 'tools/call',
      params: {
        name: 'ask',
        arguments: {},
        inputResponses: { asked: { action: 'accept' } },
        requestState: 'opaque',
        _meta: {
          [CLIENT_CAPABILITIES_META_KEY]: { sampling: {} },
          [LOG_LEVEL_META_KEY]: 'info',
          progressToken: 3,
        },
      },
    });
    expect(request.params).not.toHaveProperty('inputResponses');
  });

  it('sends a first round with no answers or state as the request it is', () => {
    expect(withClientRound({ method: 'prompts/get', params: { name: 'p' } }, {})).toEqual({
      method: 'prompts/get',
      params: { name: 'p', _meta: {} },
    });
  });
});
