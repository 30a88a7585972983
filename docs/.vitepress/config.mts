import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository the site links into for files it does not render (tests, apps, sources). */
export const REPOSITORY = 'https://github.com/s2sp/s2sp-typescript';

/**
 * The API reference's sidebar, from the one `pnpm api` (TypeDoc) writes beside the pages it
 * generates: each entry point and the exports it lists under "Start here", not its every symbol.
 * The sidebar is in the HTML of every page of the site, and the reference's symbols number about
 * 280: listing them all would add tens of KB to each page. Each entry point's page lists the rest. Before TypeDoc has run there is no reference: say so instead of failing.
 */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = join(docs, 'api', 'typedoc-sidebar.json');
  if (!existsSync(file)) {
    console.warn(
      `[docs] ${file} is missing: run \`pnpm docs:build\` (or \`pnpm --filter @s2sp/docs docs:api\`) first.`,
    );
    return [];
  }
  const modules = JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[];
  return modules.map(({ text, link, items }) => {
    const startHere = items?.find((group) => group.text === 'Start here')?.items ?? [];
    return startHere.length > 0
      ? { text, link, collapsed: true, items: startHere.map(({ text, link }) => ({ text, link })) }
      : { text, link };
  });
}

const guides: DefaultTheme.SidebarItem[] = [
  { text: 'Add S2SP to your server', link: '/guide/server' },
  { text: '… on MCP SDK v2', link: '/guide/server-sdk-v2' },
  { text: 'Write a consumer', link: '/guide/consumer' },
  { text: 'The proxy: any MCP server', link: '/guide/proxy' },
  { text: 'The SQL consumer', link: '/guide/sql-consumer' },
  { text: 'Redis and scaling out', link: '/guide/redis' },
  { text: 'Agent frameworks', link: '/guide/agent-frameworks' },
  { text: 'Claude Desktop', link: '/guide/claude-desktop' },
  { text: 'SLOP and A2S', link: '/guide/slop-a2s' },
];

// Everything the site needs is in the build: the default theme's fonts are files of the
// vitepress package, search is local, and there is no analytics, so a page loads nothing from
// another origin (docs/test/site.test.ts checks it in Chromium).
export default defineConfig({
  title: 'S2SP for TypeScript',
  description:
    'S2SP, the server-to-server data-plane extension for MCP: keep bulk tool data out of the model’s context.',
  // GitHub Pages serves a project site under /<repository>/; the workflow sets DOCS_BASE.
  base: process.env.DOCS_BASE ?? '/',
  srcExclude: ['test/**', 'README.md'],
  lastUpdated: false,
  // The local search index (every page, the API reference included) is one chunk of about 1 MB,
  // loaded only when the reader opens the search box.
  vite: { build: { chunkSizeWarningLimit: 1536 } },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/introduction', activeMatch: '^/guide/' },
      { text: 'Protocol', link: '/protocol' },
      { text: 'API', link: '/api/', activeMatch: '^/api/' },
      { text: 'Benchmarks', link: '/benchmarks' },
      { text: 'Reliability', link: '/reliability' },
    ],
    sidebar: [
      {
        text: 'Introduction',
        items: [
          { text: 'What S2SP is', link: '/guide/introduction' },
          { text: 'Quick start', link: '/guide/quick-start' },
          { text: 'Your first S2SP server', link: '/guide/first-server' },
          { text: 'Install the packages', link: '/guide/install' },
          { text: 'Troubleshooting', link: '/guide/troubleshooting' },
        ],
      },
      {
        text: 'The protocol',
        items: [{ text: 'Wire protocol and extensions', link: '/protocol' }],
      },
      { text: 'Guides', items: guides },
      {
        text: 'Reference',
        items: [
          { text: 'Examples', link: '/examples' },
          { text: 'Benchmarks', link: '/benchmarks' },
          { text: 'Reliability and security', link: '/reliability' },
          { text: 'Release notes: 0.1.0', link: '/releases/0.1.0' },
          { text: 'API', link: '/api/', collapsed: true, items: apiSidebar() },
        ],
      },
    ],
    outline: { level: [2, 3] },
    search: { provider: 'local' },
    socialLinks: [{ icon: 'github', link: REPOSITORY }],
    // The API reference's pages are generated: each says `editLink: false` in its frontmatter
    // (docs/typedoc-module-names.mjs), so only written pages offer this link.
    editLink: { pattern: `${REPOSITORY}/edit/main/docs/:path`, text: 'Edit this page' },
  },
});
