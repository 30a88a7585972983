// The system programs the tests start themselves (redis-server, Chromium, PostgreSQL's initdb,
// MariaDB's mariadbd for the proxy's real-server matrix),
// checked before `pnpm test` builds anything. This is the one list of them: `.ci/run` calls this
// script too.
//
// When some are missing: as root on a machine with apt-get (a fresh Debian/Ubuntu container, CI),
// it says what it installs and installs it, so that the README's test command passes by itself;
// anywhere else it prints the one command that installs them and stops.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

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

/**
 * What the tests start: [the program, the Debian/Ubuntu package that provides it, whether it is
 * there]. The README's Quick start names each (scripts/system-programs.test.ts checks it).
 *
 * @type {ReadonlyArray<readonly [string, string, () => boolean]>}
 */
export const SYSTEM_PROGRAMS = [
  ['redis-server', 'redis-server', () => Boolean(process.env.REDIS_URL) || onPath('redis-server')],
  [
    'Chromium',
    'chromium',
    () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') || onPath('chromium'),
  ],
  ['PostgreSQL (initdb)', 'postgresql', hasInitdb],
  // The core packages only: the server and its client, without a service that starts at install.
  [
    'MariaDB (mariadbd)',
    'mariadb-server-core',
    () =>
      Boolean(process.env.MARIADB_URL) ||
      existsSync(join(process.env.MARIADB_BIN ?? '/usr/sbin', 'mariadbd')),
  ],
  [
    'the MariaDB client (mariadb)',
    'mariadb-client-core',
    () =>
      Boolean(process.env.MARIADB_URL) ||
      existsSync(join(process.env.MARIADB_BIN ?? '/usr/bin', 'mariadb')),
  ],
];

// Checked only when run as a script, not when a test imports the list.
const isMain = import.meta.url === pathToFileURL(process.argv[1] ?? '').href;
const missing = isMain ? SYSTEM_PROGRAMS.filter(([, , present]) => !present()) : [];

if (missing.length > 0) {
  const what = missing.map(([name]) => name).join(', ');
  const packages = missing.map(([, pkg]) => pkg);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && onPath('apt-get')) {
    console.log(
      `The tests start ${what} themselves; installing: apt-get install ${packages.join(' ')}`,
    );
    const apt = (args) =>
      spawnSync('apt-get', args, {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      }).status === 0;
    if (
      !apt(['update', '-qq']) ||
      !apt(['install', '-y', '-qq', '--no-install-recommends', ...packages])
    ) {
      console.error(
        `apt-get could not install ${packages.join(' ')}; see its messages above, fix the package sources, and run the tests again.`,
      );
      process.exit(1);
    }
  } else {
    const sudo = isRoot ? '' : 'sudo ';
    console.error(
      `The tests start ${what} themselves, and this machine lacks ${missing.length === 1 ? 'it' : 'them'}. Install with:\n\n` +
        `  ${sudo}apt-get update && ${sudo}apt-get install -y ${packages.join(' ')}\n\n` +
        'then run the tests again (run as root on Debian/Ubuntu, `pnpm test` installs them itself).',
    );
    process.exit(1);
  }
}
