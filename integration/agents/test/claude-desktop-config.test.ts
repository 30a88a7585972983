/**
 * The root README's Claude Desktop configuration, run as written: the JSON block is read from the
 * README, the path placeholder becomes this clone's path, and each server is started over stdio
 * with the official SDK's StdioClientTransport — the way Claude Desktop starts them — then the
 * chain runs: get_alerts → draw_chart → the chart page.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readS2SPCapability, S2SPResultSchema } from '@s2sp/core';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const PLACEHOLDER = '/absolute/path/to/s2sp-typescript';

interface ServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

function readmeConfig(): Record<string, ServerEntry> {
  const readme = readFileSync(`${root}/README.md`, 'utf8');
  const match = /<!-- claude-desktop-config[^>]*-->\s*```json\n([\s\S]*?)```/.exec(readme);
  if (!match?.[1]) throw new Error('README.md has no <!-- claude-desktop-config --> JSON block');
  const config = JSON.parse(match[1].replaceAll(PLACEHOLDER, root)) as {
    mcpServers: Record<string, ServerEntry>;
  };
  return config.mcpServers;
}

async function start(name: string, entry: ServerEntry) {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    // Claude Desktop passes the entry's env on top of a minimal environment.
    env: { PATH: process.env.PATH ?? '', ...entry.env },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: `claude-desktop-like-${name}`, version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${name} did not start: ${stderr.join('')}`, { cause: error });
  }
  return { client, stderr };
}

describe('the README’s claude_desktop_config.json', () => {
  it('starts both servers over stdio as written and draws a chart of the heat advisories', async () => {
    const servers = readmeConfig();
    expect(Object.keys(servers)).toEqual(['weather', 'charts']);
    for (const entry of Object.values(servers))
      expect(entry.args[0]).toMatch(/^\/.*dist\/main\.js$/);
    const weather = await start('weather', servers.weather as ServerEntry);
    try {
      const charts = await start('charts', servers.charts as ServerEntry);
      try {
        expect(readS2SPCapability(weather.client.getServerCapabilities())?.roles).toEqual([
          'resource',
        ]);
        expect(readS2SPCapability(charts.client.getServerCapabilities())?.roles).toEqual([
          'consumer',
        ]);
        const alerts = await weather.client.callTool({
          name: 'get_alerts',
          arguments: { area: 'TX', abstract_domains: 'event,severity' },
        });
        expect(alerts.isError).toBeFalsy();
        const split = S2SPResultSchema.parse(alerts.structuredContent);
        const heat = split.abstract.filter((row) => String(row.event).includes('Heat'));
        expect(heat.length).toBe(13);
        const drawn = await charts.client.callTool({
          name: 'draw_chart',
          arguments: { abstract_data: heat, resource_url: split.resource_url },
        });
        const content = drawn.content as { type: string; text?: string }[];
        expect(drawn.isError, content[0]?.text).toBeFalsy();
        expect(content.map((block) => block.type)).toEqual(['text']);
        const summary = JSON.parse(content[0]?.text ?? '') as {
          chart_url: string;
          rows_charted: number;
        };
        expect(summary.rows_charted).toBe(13);
        expect(summary.chart_url).toMatch(/^http:\/\/127\.0\.0\.1:3002\/charts\/c[0-9a-z]+$/);
        const page = await fetch(summary.chart_url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<svg');
      } finally {
        await charts.client.close();
      }
    } finally {
      await weather.client.close();
    }
  });
});
