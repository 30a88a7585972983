// Runs before every test file of this project (vitest `setupFiles`).
import { afterAll, expect } from 'vitest';
import { installLoopbackGuard } from './support/loopback-guard.js';

const guard = installLoopbackGuard();

afterAll(() => {
  // Nothing in this suite may open a connection to anything but the loopback interface.
  expect(guard.refused, 'connections attempted to non-loopback hosts').toEqual([]);
});
