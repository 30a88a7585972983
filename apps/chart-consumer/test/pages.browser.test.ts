import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMcpClient, textOf } from '@s2sp/test-utils';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pngSize, startChartPipeline } from './support.js';

// Debian's Chromium; .ci/run installs it and sets CHROMIUM_PATH. This test installs nothing.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('chart pages in headless Chromium', () => {
  it('lists the chart and shows its eight panels', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}. Install it (apt-get install chromium) or set CHROMIUM_PATH.`,
      );
    }
    await using pipeline = await startChartPipeline();
    let chartId: string;
    {
      await using resourceAgent = await connectMcpClient(pipeline.resource.mcpUrl);
      const split = (await resourceAgent.call('get_alerts', { abstract_domains: 'event' }))
        .structuredContent as { abstract: unknown[]; resource_url: string };
      await using chartAgent = await connectMcpClient(pipeline.chartHttp.mcpUrl);
      const drawn = await chartAgent.call('draw_chart', {
        abstract_data: JSON.stringify(split.abstract),
        resource_url: split.resource_url,
      });
      chartId = (JSON.parse(textOf(drawn)) as { chart_id: string }).chart_id;
    }

    const scratch = await mkdtemp(join(tmpdir(), 'chart-page-'));
    // Playwright gives the browser a fresh, empty profile. The flags keep Chromium from reaching
    // for a network that tests must not use.
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
      await page.goto(`${pipeline.chartHttp.url}/charts`);
      expect(await page.title()).toBe('S2SP charts');
      const link = page.getByRole('link', { name: 'Weather Alert Statistics (12 alerts)' });
      expect(await link.count()).toBe(1);
      await link.click();
      await page.waitForURL(`**/charts/${chartId}`);
      expect(await page.locator('h1').textContent()).toBe('Weather Alert Statistics (12 alerts)');

      const chart = page.locator('.chart svg');
      await chart.waitFor({ state: 'visible' });
      const texts = await chart.locator('text').allTextContents();
      for (const title of [
        'Event Type',
        'Severity',
        'Urgency',
        'Certainty',
        'NWS Office',
        'Message Type',
        'Category',
        'Affected Area',
      ]) {
        expect(texts).toContain(title);
        await expect
          .poll(() => chart.getByText(title, { exact: true }).first().isVisible())
          .toBe(true);
      }
      const box = await chart.boundingBox();
      expect(box?.width).toBeGreaterThan(1000);
      expect(box?.height).toBeGreaterThan(600);

      const screenshot = await page.screenshot({
        fullPage: true,
        path: join(scratch, 'chart-page.png'),
      });
      const size = pngSize(new Uint8Array(screenshot));
      expect(size.width).toBe(1500);
      expect(size.height).toBeGreaterThan(800);
      if (process.env.SCREENSHOT_DIR)
        await page.screenshot({
          fullPage: true,
          path: join(process.env.SCREENSHOT_DIR, 'chart-page.png'),
        });
    } finally {
      await browser.close();
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
