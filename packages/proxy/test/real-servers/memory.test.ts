/**
 * Real-server matrix: @modelcontextprotocol/server-memory (the knowledge-graph server) over a
 * temporary memory file. `read_graph` answers with `{entities: [...], relations: [...]}`, both as
 * `structuredContent` and as indented JSON in one text block: two arrays of objects, so the
 * table is named with a pointer (`/entities`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { stdioClient, upstreamBin } from '../support.js';
import { call, text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';

const dir = mkdtempSync(join(tmpdir(), 's2sp-memory-'));
const upstream: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('@modelcontextprotocol/server-memory', 'dist/index.js')],
  env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
};
const PEOPLE = [
  'Ada Lovelace',
  'Charles Babbage',
  'Grace Hopper',
  'Alan Turing',
  'Émilie du Châtelet',
];

beforeAll(async () => {
  await using seed = await stdioClient(upstream, upstream.env as Record<string, string>);
  const entities = await call(seed.client, 'create_entities', {
    entities: PEOPLE.map((name, i) => ({
      name,
      entityType: i % 2 ? 'engineer' : 'mathematician',
      observations: [`born in the ${1700 + i * 50}s`, `note ${i}`],
    })),
  });
  expect(entities.isError, text(entities)).toBeFalsy();
  const relations = await call(seed.client, 'create_relations', {
    relations: [{ from: PEOPLE[0], to: PEOPLE[1], relationType: 'worked with' }],
  });
  expect(relations.isError, text(relations)).toBeFalsy();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('@modelcontextprotocol/server-memory through the proxy', () => {
  it('read_graph: configured with /entities, and without a flag naming the table, every entity redeemed', async () => {
    await checkRealServer({
      server: '@modelcontextprotocol/server-memory',
      tool: 'read_graph',
      upstream,
      args: {},
      abstract: ['name', 'entityType'],
      rows: (direct) =>
        (direct.structuredContent as { entities: Record<string, unknown>[] }).entities,
      expectedRows: PEOPLE.length,
    });
  });
});
