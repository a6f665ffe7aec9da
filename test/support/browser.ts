import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (apt-get install -y chromium; .ci/run installs it), never a downloaded build. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Warns once per file when a browser test will be skipped. */
export function warnWithoutChromium(what: string): void {
  if (!HAS_CHROMIUM) console.warn(`${what} skipped: ${CHROMIUM} not found (apt-get install -y chromium; .ci/run installs it)`);
}

/** Headless Chromium as this machine allows it: no sandbox as root, no background network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
