import type { Hono } from 'hono';
import type { ChartRecord, ChartStore } from './chart-store.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 2rem; color: #1d2733; }
  a { color: #2c5d94; }
  table { border-collapse: collapse; }
  td, th { padding: .4rem .8rem; border-bottom: 1px solid #dde3ea; text-align: left; }
  .chart svg { max-width: 100%; height: auto; }
  .meta { color: #5b6775; }
</style>
</head>
<body>
${body}
</body>
</html>`;
}

function summary(record: ChartRecord): string {
  return `${record.rows} rows · ${record.panels.length} panels · ${escapeHtml(new Date(record.createdAt).toUTCString())}`;
}

/**
 * Adds the chart pages to an app: `GET /charts` (newest first), `GET /charts/:id` (the SVG
 * inline, the PNG linked), `GET /charts/:id.png` and `GET /charts/:id.svg`.
 */
export function mountChartPages(app: Hono, charts: ChartStore): void {
  app.get('/charts', async (c) => {
    const records = await charts.list();
    const rows = records
      .map(
        (r) =>
          `<tr><td><a href="/charts/${r.id}">${escapeHtml(r.title)}</a></td><td class="meta">${summary(r)}</td></tr>`,
      )
      .join('\n');
    const body =
      records.length === 0
        ? '<p>No charts yet. Call the <code>draw_chart</code> tool.</p>'
        : `<table><thead><tr><th>Chart</th><th>Details</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
    return c.html(page('S2SP charts', `<h1>S2SP charts</h1>\n${body}`));
  });
  app.get('/charts/:file{c[0-9a-z]+\\.(png|svg)}', async (c) => {
    const file = c.req.param('file');
    const chart = await charts.get(file.slice(0, -4));
    if (!chart) return c.notFound();
    return file.endsWith('.png')
      ? c.body(chart.png as Uint8Array<ArrayBuffer>, 200, {
          'content-type': 'image/png',
          'cache-control': 'public, max-age=86400, immutable',
        })
      : c.body(chart.svg, 200, {
          'content-type': 'image/svg+xml',
          'cache-control': 'public, max-age=86400, immutable',
        });
  });
  app.get('/charts/:id{c[0-9a-z]+}', async (c) => {
    const chart = await charts.get(c.req.param('id'));
    if (!chart) return c.notFound();
    const { record } = chart;
    const panels = record.panels
      .map(
        (p) =>
          `<li>${escapeHtml(p.title)} (${p.distinct} ${p.distinct === 1 ? 'value' : 'values'})</li>`,
      )
      .join('');
    // The SVG is Vega's own output from the rows' values, which Vega escapes as text nodes.
    return c.html(
      page(
        record.title,
        `<p><a href="/charts">← all charts</a></p>
<h1>${escapeHtml(record.title)}</h1>
<p class="meta">${summary(record)} · <a href="/charts/${record.id}.png">PNG</a> · <a href="/charts/${record.id}.svg">SVG</a></p>
<div class="chart">${chart.svg}</div>
<ul>${panels}</ul>`,
      ),
    );
  });
}
