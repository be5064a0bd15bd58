/** Headless Chromium for the inspector's browser tests: the system browser, driven by playwright-core. */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { SqliteStore } from "../../store/sqlite-store.js";
import { startInspector } from "../server.js";

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

/** Where the inspector's browser tests save their screenshots (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL("../../../test-results/inspector/", import.meta.url));

/** A seeded SQLite store in a temporary folder, the inspector on it and a Chromium page open at it. */
export interface InspectorPage<T> {
  readonly store: SqliteStore;
  readonly page: Page;
  /** What the seed returned. */
  readonly seeded: T;
  /** The inspector's address, with its token. */
  readonly url: string;
  /** Page errors (and console errors, when asked for) seen so far. */
  readonly problems: string[];
}

/**
 * Registers the `beforeAll` / `afterAll` of a browser test on one seeded store: the object returned is
 * filled in before the first test runs, and everything is closed and removed after the last.
 */
export function inspectorPage<T>(options: {
  readonly prefix: string;
  readonly token: string;
  readonly seed: (store: SqliteStore) => Promise<T>;
  readonly consoleErrors?: boolean;
}): InspectorPage<T> {
  const dir = mkdtempSync(join(tmpdir(), options.prefix));
  const store = new SqliteStore({ path: join(dir, "sessions.db") });
  const fixture = { store, problems: [] as string[] } as {
    -readonly [K in keyof InspectorPage<T>]: InspectorPage<T>[K];
  };
  let inspector: Awaited<ReturnType<typeof startInspector>> | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    fixture.seeded = await options.seed(store);
    inspector = await startInspector({ store, port: 0, token: options.token });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    page.on("pageerror", (error) => fixture.problems.push(`pageerror: ${error.message}`));
    if (options.consoleErrors) {
      page.on("console", (message) => {
        if (message.type() === "error") fixture.problems.push(`console: ${message.text()}`);
      });
    }
    fixture.page = page;
    fixture.url = inspector.url;
    await page.goto(inspector.url);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return fixture;
}
