import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Debian's Chromium; .ci/run installs it and sets CHROMIUM_PATH. The tests install nothing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium for a test, with a fresh, empty profile (Playwright's); `await using` closes
 * it. The flags keep Chromium from reaching for a network that tests must not use. Throws, saying
 * how to install it, when Chromium is missing.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install it (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  }
  // Loaded on first use: most tests that import this package never start a browser.
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
