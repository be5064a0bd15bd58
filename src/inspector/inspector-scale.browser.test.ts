import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, chromiumAvailable, inspectorPage } from "./test-support/chromium.js";
import { bigSession } from "./test-support/recorded-sessions.js";

const available = chromiumAvailable();
const EVENTS = 10_000;

interface Timings {
  open: { events: number; fetchMs: number; ms: number }[];
  select: { seq: number; ms: number; withStateMs?: number }[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

describe.skipIf(!available)("the inspector on a session of 10,000 events", () => {
  const fixture = inspectorPage({
    prefix: "nous-inspector-big-",
    token: "big-token-0123456789abcdefghijklmnopq",
    seed: (store) => store.append("big", bigSession(EVENTS), { expectedLastSeq: 0 }),
  });
  const problems = fixture.problems;
  let page: Page;
  const timings = () => page.evaluate(() => (window as unknown as { __nousTimings: Timings }).__nousTimings);

  beforeAll(async () => {
    page = fixture.page;
    await page.locator('#session-list li[data-session="big"]').waitFor();
  }, 60_000);

  it("renders the timeline within 1 s and selects within 100 ms, with only the rows in view in the DOM", async () => {
    const opens: number[] = [];
    // Opened three times (the first also warms up the page's code); each must be within the bound.
    for (let round = 0; round < 3; round++) {
      await page.evaluate(() => {
        location.hash = "#/";
      });
      await page.locator("p.empty").waitFor();
      await page.evaluate(() => {
        location.hash = "#/s/big";
      });
      await expect.poll(async () => (await timings()).open.length, { timeout: 20_000 }).toBe(round + 1);
      opens.push((await timings()).open[round]?.ms ?? Number.NaN);
    }
    expect((await timings()).open[0]?.events).toBe(EVENTS);
    expect(await page.locator("#timeline").getAttribute("data-rows")).toBe(String(EVENTS));
    const inDom = await page.locator("#timeline li.event").count();
    expect(inDom).toBeGreaterThan(10);
    expect(inDom).toBeLessThan(200);

    const selects: number[] = [];
    const withState: number[] = [];
    for (const index of [5, 12, 20, 7, 30]) {
      const item = page.locator("#timeline li.event").nth(index);
      const seq = Number(await item.getAttribute("data-seq"));
      await item.locator(".select").click();
      await expect.poll(async () => (await timings()).select.at(-1)?.withStateMs).toBeDefined();
      const last = (await timings()).select.at(-1);
      expect(last?.seq).toBe(seq);
      selects.push(last?.ms ?? Number.NaN);
      withState.push(last?.withStateMs ?? Number.NaN);
      expect(await item.getAttribute("class")).toContain("selected");
      await expect.poll(() => page.locator("#state-title").innerText()).toBe(`State at event #${seq}`);
    }

    // Scrolling to the end brings the last rows in; keyboard selection moves and stays in view.
    await page.locator("#timeline-scroll").evaluate((node) => {
      node.scrollTop = node.scrollHeight;
    });
    await page.locator(`#timeline li[data-seq="${EVENTS}"]`).waitFor();
    await page.locator(`#timeline li[data-seq="${EVENTS - 1}"] .select`).click();
    await page.keyboard.press("ArrowDown");
    await expect
      .poll(() => page.locator(`#timeline li[data-seq="${EVENTS}"]`).getAttribute("class"))
      .toContain("selected");
    // The state pane fetched the last 100 messages; the rest come on demand.
    await expect.poll(() => page.locator("#state-title").innerText()).toBe(`State at event #${EVENTS}`);
    const total = Number((await page.locator("#state-body h4", { hasText: "Messages" }).innerText()).match(/\d+/)?.[0]);
    expect(total).toBeGreaterThan(3000);
    expect(await page.locator("#messages li").count()).toBe(100);
    await page.screenshot({ path: join(ARTIFACTS, "ten-thousand-events.png") });
    await page.locator("#state-body .more-messages").click();
    await expect.poll(() => page.locator("#messages li").count()).toBe(total);

    const open = (await timings()).open;
    const renders = open.map((entry) => entry.ms - entry.fetchMs);
    const report = {
      openMs: opens.map((ms) => Math.round(ms)),
      fetchMs: open.map((entry) => Math.round(entry.fetchMs)),
      renderMs: renders.map((ms) => Math.round(ms)),
      selectMs: selects.map((ms) => Math.round(ms * 10) / 10),
      selectWithStateMs: withState.map((ms) => Math.round(ms)),
      rowsInDom: inDom,
    };
    console.log(`inspector at ${EVENTS} events: ${JSON.stringify(report)}`);
    // Medians, so one slow round on a busy machine does not decide. Render: the events in the page →
    // the timeline on screen (the next frame), within 1 s. Opening also fetches the session (2 MB of
    // JSON); that is reported, and only guarded against a gross regression.
    expect(median(renders)).toBeLessThanOrEqual(1000);
    expect(median(opens)).toBeLessThanOrEqual(3000);
    expect(median(selects)).toBeLessThanOrEqual(100); // the row highlighted and the detail pane filled
    // … and the state at the event loaded from the API: a round trip to the server, reported (under
    // 100 ms here when the machine is not saturated) and guarded against a gross regression.
    expect(median(withState)).toBeLessThanOrEqual(300);
    expect(problems).toEqual([]);
  }, 120_000);
});
