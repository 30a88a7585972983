/**
 * A vitest set-up file (`setupFiles`) that keeps a project's tests on loopback: the
 * {@link installLoopbackGuard} tripwire for the file's process, and a check after each test that
 * it tried no other host, so the test that did fails, naming the hosts. For projects whose files
 * each get a fresh module graph (`isolate: true`): the guard is installed once per file.
 */
import { afterEach, expect } from 'vitest';
import { installLoopbackGuard } from './loopback-guard.js';

const guard = installLoopbackGuard();

afterEach(() => {
  expect(guard.refused.splice(0), 'connections attempted to non-loopback hosts').toEqual([]);
});
