import { fileURLToPath } from 'node:url';
import { optionRows } from '@s2sp/core/options';
import { readmeOptionsDiff } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { EdgeOptionsSchema } from '../src/edge/edge-options.js';
import { S2SPServerOptionsSchema } from '../src/server-options.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));

describe("@s2sp/server's README options tables", () => {
  it('list every option of createS2SPServer with its default, and nothing else', () => {
    expect(
      readmeOptionsDiff(README, 'createS2SPServer', optionRows(S2SPServerOptionsSchema)),
    ).toEqual([]);
  });

  it('list every option of createS2SPEdge with its default and variable', () => {
    expect(readmeOptionsDiff(README, 'createS2SPEdge', optionRows(EdgeOptionsSchema))).toEqual([]);
  });
});
