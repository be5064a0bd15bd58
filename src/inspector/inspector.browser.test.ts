/**
 * The inspector page in headless Chromium (playwright-core driving the system browser), on a SQLite
 * store recorded by real agent runs: the sessions list and its filters, the timeline (surface vs
 * bookkeeping, nesting, child links, escaping), the state and diff at a selected event, the request
 * chart and totals, approving a pending call so the run continues live, and forking. Screenshots go
 * to test-artifacts/inspector/.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "../index.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { startInspector } from "./server.js";
import { chromiumAvailable, launchChromium } from "./test-support/chromium.js";
import { recordSessions, resumeShop } from "./test-support/sessions.js";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/inspector/", import.meta.url));
const available = chromiumAvailable();

// Skipped only on a developer machine without Chromium (announced above); under CI it fails instead.
describe.skipIf(!available)("the inspector page in Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "nous-inspector-"));
  const store = new SqliteStore({ path: join(dir, "sessions.db") });
  let inspector: Awaited<ReturnType<typeof startInspector>>;
  let browser: Browser;
  let page: Page;
  let shopEvents: SessionEvent[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const shop = await recordSessions(store);
    shopEvents = await store.read("shop");
    inspector = await startInspector({
      store,
      port: 0,
      token: "browser-token-0123456789abcdefghijklmnop",
      resume: (sessionId) => resumeShop(shop, store, sessionId),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = () => page.locator("#session-list li[data-session]");
  const listed = async () => rows().evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.session));

  it("lists the sessions with their statuses, filtered by status and search", async () => {
    await page.goto(inspector.url);
    expect(new URL(page.url()).search).toBe(""); // the token moved into a cookie
    await page.locator('#session-list li[data-session="shop"]').waitFor();
    const statuses = await rows().evaluateAll((items) =>
      Object.fromEntries(
        items.map((item) => [(item as HTMLElement).dataset.session, (item as HTMLElement).dataset.status]),
      ),
    );
    expect(statuses).toEqual({ shop: "awaiting_approval", broken: "failed", helper: "completed" });
    await expect.poll(() => page.locator('[data-session="shop"]').innerText()).toMatch(/shopper · scripted:gpt-4o/);

    await page.selectOption("#status", "failed");
    await expect.poll(listed).toEqual(["broken"]);
    await page.selectOption("#status", "");
    await page.fill("#search", "help");
    await expect.poll(listed).toEqual(["helper"]);
    await page.fill("#search", "");
    await expect.poll(listed).toHaveLength(3);
  });

  it("shows every event in order, surface and bookkeeping told apart, nested under their call, text escaped", async () => {
    await page.click('#session-list a[href="#/s/shop"]');
    await page.locator("#timeline").waitFor();
    const seqsOf = (selector: string) =>
      page.locator(selector).evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.seq)));
    // Every event is shown; the top level is in seq order, nested events sit under their call.
    const all = await seqsOf("#timeline li.event");
    expect([...all].sort((a, b) => a - b)).toEqual(shopEvents.map((event) => event.seq));
    const top = await seqsOf("#timeline > li.event");
    expect(top).toEqual([...top].sort((a, b) => a - b));
    expect(top.length).toBe(all.length - 2);

    const user = page.locator('#timeline li[data-type="user_message"]');
    const audit = page.locator('#timeline li[data-type="audit"]').first();
    expect(await user.getAttribute("data-kind")).toBe("surface");
    expect(await user.locator(".kind").first().innerText()).toMatch(/surface/i);
    expect(await audit.getAttribute("data-kind")).toBe("bookkeeping");
    expect(await audit.locator(".kind").first().innerText()).toMatch(/bookkeeping/i);
    const border = (locator: typeof user) =>
      locator
        .locator(".select")
        .first()
        .evaluate((node) => getComputedStyle(node).borderLeftColor);
    expect(await border(user)).not.toBe(await border(audit));

    const call = page.locator('#timeline li[data-type="tool_call"]').first();
    await expect.poll(() => call.locator('ol.children > li[data-type="code_dispatch"]').count()).toBe(1);
    const child = call.locator('ol.children > li[data-type="subagent_run"] a.child-link');
    expect(await child.getAttribute("href")).toBe("#/s/helper");

    // Data is text, never markup: the item "milk <b>&</b> eggs" shows literally.
    expect(await page.locator("#timeline b").count()).toBe(0);
    expect(await page.locator("#timeline").innerText()).toContain("milk <b>&</b> eggs");

    const details = user.locator("details");
    await details.locator("summary").click();
    expect(await details.locator("pre").innerText()).toContain('"type": "user_message"');

    expect(await page.locator("#chart svg g.bar").count()).toBe(3);
    expect(await page.locator("#cost").innerText()).toMatch(/^\$0\.00\d+/);
  });

  it("selecting an event shows the messages and deps at that event with the diff highlighted", async () => {
    const append = shopEvents.find(
      (event) => event.type === "context_update" && (event.data as { toolCallId?: string }).toolCallId === "c1",
    );
    await page.click(`#timeline li[data-seq="${append?.seq}"] > .row .select`);
    await expect.poll(() => page.locator("#diff li").allInnerTexts()).toEqual(["+ cart[0]"]);
    expect(await page.locator('#deps [data-path="cart[0]"]').getAttribute("class")).toContain("added");
    expect(await page.locator("#deps").innerText()).toContain("milk <b>&</b> eggs");
    expect(await page.locator("#messages li").count()).toBe(2);
    expect(await page.locator("#state-title").innerText()).toBe(`State at event #${append?.seq}`);

    // Keyboard: arrow down moves the selection to the next event.
    await page.focus(`#timeline li[data-seq="${append?.seq}"] > .row .select`);
    await page.keyboard.press("ArrowDown");
    const next = (append?.seq ?? 0) + 1;
    await expect
      .poll(() => page.locator(`#timeline li[data-seq="${next}"] > .row .select`).getAttribute("aria-pressed"))
      .toBe("true");
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => page.locator("#diff li").allInnerTexts()).toEqual(["+ cart[0]"]);

    const merge = shopEvents.find(
      (event) => event.type === "context_update" && (event.data as { toolCallId?: string }).toolCallId === "c2",
    );
    await page.click(`#timeline li[data-seq="${merge?.seq}"] > .row .select`);
    await expect.poll(() => page.locator("#diff li").allInnerTexts()).toEqual(["~ prefs.theme"]);
    expect(await page.locator('#deps [data-path="prefs.theme"]').getAttribute("class")).toContain("changed");
    await page.screenshot({ path: join(ARTIFACTS, "timeline-and-state.png"), fullPage: true });
  });

  it("approving the pending call makes the run continue, its events arriving live without a reload", async () => {
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    const approve = page.getByRole("button", { name: "Approve checkout (c3)" });
    await page.locator("#approvals").screenshot({ path: join(ARTIFACTS, "pending-approval.png") });
    await approve.click();
    await page.locator('#timeline li[data-type="run_completed"]').waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await expect.poll(() => page.locator("#session-status").getAttribute("data-status")).toBe("completed");
    expect(await page.locator("#approvals button").count()).toBe(0);
    expect(await page.locator('#timeline li[data-type="approval_decided"]').count()).toBe(1);
    expect(await page.locator("#timeline li.event").count()).toBe((await store.read("shop")).length);
    await expect
      .poll(() => page.locator('#session-list li[data-session="shop"]').getAttribute("data-status"))
      .toBe("completed");
    expect(await page.locator("#chart svg g.bar").count()).toBe(4);
    await page.screenshot({ path: join(ARTIFACTS, "after-approval.png"), fullPage: true });
  });

  it("forks the session at the selected event", async () => {
    await page.click('#timeline li[data-seq="5"] > .row .select');
    await page.getByRole("button", { name: "Fork the session at the selected event" }).click();
    await expect.poll(() => page.locator("#session-head h2").innerText()).not.toBe("shop");
    const forkId = await page.locator("#session-head h2").innerText();
    expect(await store.get(forkId)).toMatchObject({ parentSessionId: "shop", forkedAtSeq: 5, eventCount: 5 });
    expect(await page.locator("#session-head").innerText()).toContain("forked from shop at #5");
    expect(await page.locator("#timeline li.event").count()).toBe(5);
    await expect.poll(listed).toContain(forkId);
    await page.screenshot({ path: join(ARTIFACTS, "fork.png"), fullPage: true });

    await page.click('#session-list a[href="#/s/broken"]');
    await expect.poll(() => page.locator("#session-status").getAttribute("data-status")).toBe("failed");
    expect(await page.locator('#timeline li[data-type="run_failed"]').count()).toBe(1);
    expect(await page.locator("#cost").innerText()).toBe("—");
    await page.screenshot({ path: join(ARTIFACTS, "failed-session.png"), fullPage: true });
    expect(problems).toEqual([]);
  });
});
