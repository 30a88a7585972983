/**
 * The documentation's table of real servers is the matrix's configuration (`servers.ts`), one
 * source: the proxy README's and the guide's tables have exactly its rows, its versions are the
 * pinned devDependencies, and each of its tools is run by a test of this folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tableAfter } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { upstreamBin } from '../support.js';
import { MATRIX, MATRIX_TABLE_HEADER, matrixTableRows } from './servers.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const GUIDE = fileURLToPath(new URL('../../../../docs/guide/proxy.md', import.meta.url));
const MANIFEST = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { devDependencies: Record<string, string> };

describe('the real-server table', () => {
  for (const [name, path] of [
    ['the proxy README', README],
    ['the proxy guide', GUIDE],
  ] as const) {
    it(`${name} lists every server of the matrix as servers.ts says`, () => {
      const table = tableAfter(readFileSync(path, 'utf8'), 'real-servers');
      expect(table, `${path} has a table after <!-- real-servers -->`).toBeDefined();
      expect(table?.header).toEqual(MATRIX_TABLE_HEADER);
      expect(table?.rows).toEqual(matrixTableRows());
    });
  }

  it('names the versions installed: the pinned devDependencies', () => {
    for (const { server, version } of MATRIX) {
      expect(MANIFEST.devDependencies[server], server).toBe(version);
      const installed = JSON.parse(readFileSync(upstreamBin(server, 'package.json'), 'utf8'));
      expect(installed.version, server).toBe(version);
    }
  });

  it('has each tool run by a test of the matrix', () => {
    const folder = new URL('./', import.meta.url);
    const sources = readdirSync(folder)
      .filter((file) => file.endsWith('.test.ts') && file !== 'readme-table.test.ts')
      .map((file) => readFileSync(new URL(file, folder), 'utf8'));
    for (const { server, tools } of MATRIX) {
      for (const { tool } of tools) {
        const call = new RegExp(`server: '${server.replace(/[/.]/g, '\\$&')}',\\s+tool: '${tool}'`);
        const runs = sources.some((source) => call.test(source));
        expect(runs, `${server} ${tool}`).toBe(true);
      }
    }
  });
});
