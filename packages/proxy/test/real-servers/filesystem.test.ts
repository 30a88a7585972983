/**
 * Real-server matrix: @modelcontextprotocol/server-filesystem over a temporary directory.
 * `directory_tree` answers with the tree as an indented JSON array of `{name, type, children?}` in
 * one text block, and the same text again as `structuredContent.content` (a string).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { upstreamBin } from '../support.js';
import { text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';

// The server resolves symbolic links (macOS's /tmp) and refuses paths outside the real one.
const dir = realpathSync(mkdtempSync(join(tmpdir(), 's2sp-filesystem-')));
for (let i = 1; i <= 6; i++) writeFileSync(join(dir, `alert-${i}.json`), `{"id":${i}}`);
writeFileSync(join(dir, 'README.md'), '# Alerts\n');
mkdirSync(join(dir, 'archive', '2025'), { recursive: true });
writeFileSync(join(dir, 'archive', '2025', 'old.csv'), 'id,event\n1,Flood\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const upstream: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('@modelcontextprotocol/server-filesystem', 'dist/index.js'), dir],
};

describe('@modelcontextprotocol/server-filesystem through the proxy', () => {
  it('directory_tree: configured, every entry redeemed; without a flag, not offered', async () => {
    await checkRealServer({
      server: '@modelcontextprotocol/server-filesystem',
      tool: 'directory_tree',
      upstream,
      args: { path: dir },
      abstract: ['name', 'type'],
      rows: (direct) => JSON.parse(text(direct)),
      expectedRows: 8,
    });
  });
});
