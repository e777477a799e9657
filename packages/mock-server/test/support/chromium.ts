/**
 * Headless Chromium for the console's browser tests: Debian's `chromium` (or CHROMIUM_PATH), driven by
 * playwright-core, with nothing reaching out to the network on its own.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where the browser is. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Whether it is installed (the browser tests are skipped, with a warning, when it is not). */
export const hasChromium = existsSync(CHROMIUM);

/** Launches it headless, without sandbox, GPU, background networking or component updates. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
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
