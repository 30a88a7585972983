#!/usr/bin/env node
// An app's `pnpm dev`: tsup's watch build (the package's own tsup config), and the app started
// again after each build — what `tsup --watch --onSuccess "<command>"` does, except for how it
// stops. tsup's CLI dies of Ctrl-C's SIGINT (exit 130), which pnpm reports as
// `ELIFECYCLE Command failed` once per app. Here a SIGINT or SIGTERM stops the app the way it
// stops in production (stopOnSignals: finish what runs, exit 0), then this process exits with the
// app's code. The signal is forwarded to the app (turbo signals only its task's process), and a
// repeat within a second is the same Ctrl-C relayed by pnpm or turbo, which stopOnSignals ignores
// too; a later one is the operator's second Ctrl-C, and the app exits at once.
//
//   node ../../scripts/dev-server.mjs node dist/main.js --replay
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { build } from 'tsup';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('Usage: node scripts/dev-server.mjs <command> [args…] (in a package)\n');
  process.exit(2);
}

/** The app of the last build, or undefined before the first build ends. */
let app;
/** When the first stop signal came (performance.now()), or undefined. */
let stoppingSince;
const REPEAT_WINDOW_MS = 1000;

const running = () => app !== undefined && app.exitCode === null && app.signalCode === null;

function startApp() {
  app = spawn(command, args, { stdio: 'inherit' });
  // An app that dies of the signal it was sent (one without a handler) stopped as asked.
  app.once('exit', (code) => {
    if (stoppingSince !== undefined) process.exit(code ?? 0);
  });
}

/** Stops the app (before a rebuild starts it again) and waits for it to exit. */
async function stopApp() {
  if (!running()) return;
  const exited = once(app, 'exit');
  app.kill('SIGTERM');
  await exited;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (!running()) process.exit(0);
    const now = performance.now();
    if (stoppingSince === undefined) stoppingSince = now;
    else if (now - stoppingSince < REPEAT_WINDOW_MS) return;
    app.kill(signal);
  });
}

await build({
  watch: true,
  // Declarations are for the packages that import an app: `pnpm build` writes them, and they stay
  // (no cleaning). Building them here would hold this process's event loop for seconds, and a
  // Ctrl-C with it.
  dts: false,
  clean: false,
  onSuccess: async () => {
    if (stoppingSince !== undefined) return undefined;
    startApp();
    return stopApp;
  },
});
