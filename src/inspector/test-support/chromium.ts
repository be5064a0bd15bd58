/** Headless Chromium for the inspector's browser tests: the system browser, driven by playwright-core. */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Whether the system Chromium is there; under CI its absence is an error, elsewhere the tests are skipped (announced). */
export function chromiumAvailable(): boolean {
  const available = existsSync(CHROMIUM);
  if (!available) {
    if (process.env.CI) throw new Error(`${CHROMIUM} is missing: CI must install chromium for the inspector tests`);
    console.log(`inspector browser tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
  }
  return available;
}

/** Launches headless Chromium with the quiet flags every browser test uses. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
