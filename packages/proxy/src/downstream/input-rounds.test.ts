import { describe, expect, it } from 'vitest';
import { relayScope } from '../upstream/client-relay.js';
import {
  createInputRounds,
  MAX_CALLS_IN_ROUNDS,
  MAX_CALLS_IN_ROUNDS_PER_CLIENT,
  type ModernCall,
} from './input-rounds.js';

const SAMPLE = { method: 'sampling/createMessage', params: { maxTokens: 1, messages: [] } };

/** A handler standing in for a forwarded call: asks the client once through the relay, answers with it. */
const asksOnce = async (call: ModernCall) => {
  const target = relayScope.getStore();
  if (!target) throw new Error('no relay target');
  const answer = await target.send(SAMPLE, {
    signal: call.mcpReq?.signal ?? new AbortController().signal,
    timeoutMs: 1_000,
  });
  return { answered: answer };
};

/** A round's request: fresh, or a retry echoing `state` with `responses`. */
const request = (state?: string, responses?: Record<string, unknown>): ModernCall => ({
  mcpReq: {
    signal: new AbortController().signal,
    ...(responses && { inputResponses: responses }),
    requestState: () => state,
  },
});

type Round = {
  resultType?: string;
  inputRequests?: Record<string, unknown>;
  requestState?: string;
};

describe('createInputRounds', () => {
  it('answers with input_required, then the result once the client answers', async () => {
    const rounds = createInputRounds({ timeoutMs: 5_000 });
    const first = (await rounds.run(request(), 'c1', { sampling: {} }, asksOnce)) as Round;
    expect(first.resultType).toBe('input_required');
    const [key, asked] = Object.entries(first.inputRequests ?? {})[0] ?? [];
    expect(asked).toEqual(SAMPLE);
    expect(first.requestState).toMatch(/^[\w-]{43}$/);
    const second = await rounds.run(
      request(first.requestState, { [key ?? '']: { model: 'm' } }),
      'c1',
      { sampling: {} },
      asksOnce,
    );
    expect(second).toEqual({ answered: { model: 'm' } });
    expect(rounds.size()).toBe(0);
  });

  it('answers at once when the upstream asks nothing', async () => {
    const rounds = createInputRounds({ timeoutMs: 5_000 });
    await expect(rounds.run(request(), 'c1', {}, async () => ({ plain: true }))).resolves.toEqual({
      plain: true,
    });
    expect(rounds.size()).toBe(0);
  });

  it('continues a call for the client that started it only', async () => {
    const rounds = createInputRounds({ timeoutMs: 5_000 });
    const first = (await rounds.run(request(), 'c1', { sampling: {} }, asksOnce)) as Round;
    const stolen = rounds.run(request(first.requestState, {}), 'c2', { sampling: {} }, asksOnce);
    await expect(stolen).rejects.toMatchObject({ code: -32602 });
    const forged = rounds.run(request('forged', {}), 'c1', { sampling: {} }, asksOnce);
    await expect(forged).rejects.toMatchObject({ code: -32602 });
    expect(rounds.size()).toBe(1);
    rounds.close();
    expect(rounds.size()).toBe(0);
  });

  it('cancels the call of a client that does not come back in time', async () => {
    const rounds = createInputRounds({ timeoutMs: 50 });
    let seen: AbortSignal | undefined;
    let failure: unknown;
    const first = (await rounds.run(request(), 'c1', { sampling: {} }, async (call) => {
      seen = call.mcpReq?.signal;
      try {
        return await asksOnce(call);
      } catch (error) {
        failure = error;
        throw error;
      }
    })) as Round;
    expect(first.resultType).toBe('input_required');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(seen?.aborted).toBe(true);
    expect(failure).toMatchObject({ code: -32001 });
    expect(rounds.size()).toBe(0);
    await expect(
      rounds.run(request(first.requestState, {}), 'c1', {}, asksOnce),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('hands on a missing answer as the client not answering', async () => {
    const rounds = createInputRounds({ timeoutMs: 5_000 });
    const first = (await rounds.run(request(), 'c1', { sampling: {} }, async (call) => {
      try {
        return await asksOnce(call);
      } catch (error) {
        return { failed: (error as { code?: number }).code };
      }
    })) as Round;
    const second = await rounds.run(request(first.requestState, {}), 'c1', {}, asksOnce);
    expect(second).toEqual({ failed: -32600 });
  });

  it('keeps at most its limit of calls across rounds; beyond it the upstream is refused', async () => {
    const rounds = createInputRounds({ timeoutMs: 5_000 });
    for (let i = 0; i < MAX_CALLS_IN_ROUNDS; i++)
      await rounds.run(request(), `c${i}`, { sampling: {} }, asksOnce);
    expect(rounds.size()).toBe(MAX_CALLS_IN_ROUNDS);
    const over = await rounds.run(request(), 'late', { sampling: {} }, async (call) => {
      try {
        return await asksOnce(call);
      } catch (error) {
        return { failed: (error as { code?: number }).code };
      }
    });
    expect(over).toEqual({ failed: -32000 });
    rounds.close();
  });

  it('keeps at most its per-client limit of one client’s calls; another client still has room', async () => {
    const rounds = createInputRounds({ timeoutMs: 5_000 });
    const tries = async (client: string) =>
      rounds.run(request(), client, { sampling: {} }, async (call) => {
        try {
          return await asksOnce(call);
        } catch (error) {
          return { failed: (error as { code?: number }).code };
        }
      });
    for (let i = 0; i < MAX_CALLS_IN_ROUNDS_PER_CLIENT; i++) await tries('greedy');
    expect(await tries('greedy')).toEqual({ failed: -32000 });
    expect(await tries('other')).toMatchObject({ resultType: 'input_required' });
    expect(rounds.size()).toBe(MAX_CALLS_IN_ROUNDS_PER_CLIENT + 1);
    rounds.close();
  });
});
