/**
 * The baseline reader: every entry carries a reason the harness understands, and the check of a
 * "needs" reason tells what the app has from what it lacks.
 */
import { connectMcpClient } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { parseBaseline, serverLacks } from './baseline.js';
import { TARGETS } from './targets.js';

describe('parseBaseline', () => {
  it('reads each entry with its reason', () => {
    const text = [
      '# header',
      'server:',
      '  - tools-call-image # needs tool test_image_content',
      '  - resources-subscribe # needs capability resources.subscribe',
      '  - resources-read-text # needs resource test://static-text',
      '  - prompts-get-simple # needs prompt test_simple_prompt',
      '  - server-sse-multiple-streams # suite: a reason long enough to say something; evidence: x',
    ].join('\n');
    expect(parseBaseline(text)).toEqual([
      { scenario: 'tools-call-image', needs: { kind: 'tool', name: 'test_image_content' } },
      {
        scenario: 'resources-subscribe',
        needs: { kind: 'capability', name: 'resources.subscribe' },
      },
      { scenario: 'resources-read-text', needs: { kind: 'resource', name: 'test://static-text' } },
      { scenario: 'prompts-get-simple', needs: { kind: 'prompt', name: 'test_simple_prompt' } },
      {
        scenario: 'server-sse-multiple-streams',
        suiteBug: 'a reason long enough to say something; evidence: x',
      },
    ]);
    expect(parseBaseline('server: []')).toEqual([]);
  });

  it.each([
    ['no reason', 'server:\n  - tools-call-image\n', /tools-call-image needs a reason/],
    ['a reason it cannot check', 'server:\n  - ping # flaky\n', /ping needs a reason/],
    ['an unknown kind', 'server:\n  - ping # needs method ping\n', /ping needs a reason/],
    ['a suite reason without substance', 'server:\n  - ping # suite: bug\n', /ping needs a/],
    ['a name twice', 'server:\n  - a # needs tool x\n  - a # needs tool x\n', /a is listed twice/],
    ['no server list', 'client: []\n', /needs a "server:" list/],
    ['a non-string entry', 'server:\n  - {a: 1}\n', /each "server" entry is a scenario name/],
    ['broken YAML', 'server: [\n', /baseline:/],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseBaseline(text)).toThrow(message);
  });
});

describe('serverLacks', () => {
  it('tells what weather-alerts has from what it lacks', async () => {
    const weather = TARGETS.find((target) => target.name === 'weather-alerts');
    await using running = await weather?.start();
    await using agent = await connectMcpClient(running?.mcpUrl ?? '');
    const lacks = (kind: 'tool' | 'prompt' | 'resource' | 'capability', name: string) =>
      serverLacks(agent.client, { kind, name });
    expect(await lacks('tool', 'get_alerts')).toBe(false);
    expect(await lacks('tool', 'test_simple_text')).toBe(true);
    expect(await lacks('prompt', 's2sp_workflow')).toBe(false);
    expect(await lacks('prompt', 'test_simple_prompt')).toBe(true);
    expect(await lacks('resource', 'weather://cache')).toBe(false);
    expect(await lacks('resource', 'test://static-text')).toBe(true);
    expect(await lacks('capability', 'tools')).toBe(false);
    expect(await lacks('capability', 'experimental.s2sp')).toBe(false);
    expect(await lacks('capability', 'logging')).toBe(true);
    expect(await lacks('capability', 'resources.subscribe')).toBe(true);
  });
});
