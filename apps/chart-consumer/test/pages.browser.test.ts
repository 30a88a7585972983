import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMcpClient, launchChromium, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { pngSize, startChartPipeline } from './support.js';

describe('chart pages in headless Chromium', () => {
  it('lists the chart and shows its eight panels', async () => {
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
    await using browser = await launchChromium();
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
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
