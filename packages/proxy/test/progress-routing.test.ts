/**
 * Progress reaches a session only for its own request: the proxy sends each request
 * upstream with a progress token it mints (random), so an upstream tool that sprays progress at
 * small sequential tokens (the SDK's message ids) reaches nobody, while the caller still gets
 * its own progress under its own token.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_SERVER, httpClient, startProxy } from './support.js';

describe('progress through the proxy', () => {
  it('reaches the session whose request it is for, and no guessed token reaches anyone', async () => {
    await using running = await startProxy({ upstream: HOSTILE_SERVER });
    await using victim = await httpClient(running.listener.mcpUrl);
    await using attacker = await httpClient(running.listener.mcpUrl);
    const received: { progress: number; message?: string }[] = [];
    const own = victim.client.callTool(
      { name: 'progress', arguments: { steps: 6, ms: 80 } },
      undefined,
      {
        onprogress: (progress) => received.push(progress),
      },
    );
    let finished = false;
    void own.finally(() => {
      finished = true;
    });
    // While the victim's call runs, the other session has the upstream spray every small token.
    let sprays = 0;
    while (!finished || sprays === 0) {
      const sprayed = await attacker.client.callTool(
        { name: 'spray', arguments: { upto: 100 } },
        undefined,
        { onprogress: (progress) => received.push(progress) },
      );
      expect(sprayed.isError).toBeFalsy();
      sprays++;
    }
    const result = await own;
    expect(result.isError).toBeFalsy();
    expect(received.map((p) => p.message)).toEqual([1, 2, 3, 4, 5, 6].map((i) => `step ${i}`));
    // The upstream saw a token nobody could guess, not a message id.
    const seen = JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}');
    expect(seen.token).toBe('string');
  });

  it('still resets the time limit on the request’s own progress', async () => {
    // Six steps 150 ms apart: 900 ms in all, over the 400 ms limit, which each step resets.
    await using running = await startProxy({ upstream: HOSTILE_SERVER, timeoutSeconds: 0.4 });
    await using agent = await httpClient(running.listener.mcpUrl);
    const steps: number[] = [];
    const result = await agent.client.callTool(
      { name: 'progress', arguments: { steps: 6, ms: 150 } },
      undefined,
      { onprogress: (progress) => steps.push(progress.progress) },
    );
    expect(result.isError).toBeFalsy();
    expect(steps).toEqual([1, 2, 3, 4, 5, 6]);
    // Without progress the same call runs out of time.
    const silent = await agent.client.callTool({
      name: 'progress',
      arguments: { steps: 6, ms: 150 },
    });
    expect(silent.isError).toBe(true);
    expect(silent._meta?.['s2sp/error-code']).toBe('timeout');
  });
});
