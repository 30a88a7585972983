// Stops `pnpm test` at once, before any build, when the machine lacks a system program the
// tests start themselves (redis-server, Chromium, PostgreSQL's initdb), and prints the one
// command that installs them. Installing needs root, so this script does not do it; `.ci/run`
// does (it is what CI runs on a clean machine).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const onPath = (program) =>
  (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, program)));

const hasInitdb = () => {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, 'initdb'));
  const root = '/usr/lib/postgresql';
  if (existsSync(root) && readdirSync(root).some((v) => existsSync(join(root, v, 'bin', 'initdb'))))
    return true;
  const bin = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  return bin.status === 0 && existsSync(join(bin.stdout.trim(), 'initdb'));
};

const missing = [];
if (!process.env.REDIS_URL && !onPath('redis-server'))
  missing.push(['redis-server', 'redis-server']);
if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') && !onPath('chromium'))
  missing.push(['Chromium', 'chromium']);
if (!hasInitdb()) missing.push(['PostgreSQL (initdb)', 'postgresql']);

if (missing.length > 0) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0 ? '' : 'sudo ';
  console.error(
    `The tests start ${missing.map(([what]) => what).join(', ')} themselves, and this machine lacks ${missing.length === 1 ? 'it' : 'them'}. Install with:\n\n` +
      `  ${root}apt-get update && ${root}apt-get install -y ${missing.map(([, pkg]) => pkg).join(' ')}\n\n` +
      'or run .ci/run, which installs what is missing and then runs the tests (Debian/Ubuntu).',
  );
  process.exit(1);
}
