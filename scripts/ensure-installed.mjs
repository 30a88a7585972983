// Installs the workspace when it has not been installed yet, or when the lockfile changed since,
// so that `pnpm demo` and `pnpm test` work as the first commands on a fresh clone.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.modules.yaml');
const lockfile = join(root, 'pnpm-lock.yaml');

if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lockfile).mtimeMs) {
  // npm_execpath is the pnpm that runs this script (a global one, corepack's or npx's).
  const pnpm = process.env.npm_execpath;
  const [command, args] = pnpm ? [process.execPath, [pnpm]] : ['pnpm', []];
  console.log('Installing dependencies (pnpm install --frozen-lockfile)…');
  const result = spawnSync(command, [...args, 'install', '--frozen-lockfile'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(
      'pnpm install failed; see the output above. Node >= 20 and access to the npm registry are needed.',
    );
    process.exit(result.status ?? 1);
  }
}
