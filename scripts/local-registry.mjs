// A private npm registry on loopback (Verdaccio, a root devDependency), for the packaging test's
// "install by name" step: `pnpm release` publishes to it and a fresh project installs from it.
// It serves only what is published to it: no uplink, so a name it lacks is a 404, never a fetch
// from the public registry. It runs in a child process because the packaging test drives npm with
// spawnSync, which would block a server in its own event loop.
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD_FLAG = '--serve-registry';

/**
 * Starts Verdaccio on 127.0.0.1 at a free port with its storage under `dir`, and signs up one
 * publishing user.
 *
 * @param {string} dir an empty directory (the storage and the user file go there)
 * @returns {Promise<{ url: string, token: string, stop: () => void }>} the registry's URL (with
 *   a trailing slash, as npm writes registry URLs), a token that may publish, and a stop function
 */
export async function startLocalRegistry(dir) {
  mkdirSync(dir, { recursive: true });
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG, dir], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  try {
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('Verdaccio did not start in 60 s')), 60_000);
      child.once('message', (message) => {
        clearTimeout(timer);
        resolve(message.port);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Verdaccio exited (${code}) before listening; see its output above`));
      });
    });
    const url = `http://127.0.0.1:${port}/`;
    // npm adduser's request: Verdaccio's htpasswd plugin creates the user and answers its token.
    const response = await fetch(`${url}-/user/org.couchdb.user:s2sp-release-test`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 's2sp-release-test', password: 'local-only-password' }),
    });
    const { token } = await response.json();
    if (!response.ok || typeof token !== 'string')
      throw new Error(`Verdaccio refused to create the publishing user (HTTP ${response.status})`);
    return { url, token, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** The child: Verdaccio with no uplinks, listening on a free loopback port. */
async function serve(dir) {
  const { runServer } = await import('verdaccio');
  const app = await runServer({
    self_path: join(dir, 'config.yaml'),
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 1 } },
    // No uplinks and no `proxy` on any package: nothing leaves 127.0.0.1.
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$authenticated' } },
    web: { enable: false },
    // Idle connections stay open: the test's process blocks in spawnSync for minutes between two
    // requests, too long for its fetch to notice that the server closed a kept-alive socket.
    server: { keepAliveTimeout: 0 },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
  });
  const server = app.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
  process.once('disconnect', () => process.exit(0));
}

if (process.argv[2] === CHILD_FLAG) await serve(process.argv[3]);
