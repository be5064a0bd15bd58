import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, chromiumAvailable, inspectorPage } from "./test-support/chromium.js";
import { INJECTION, recordFixtures, type SentSeqs } from "./test-support/recorded-sessions.js";

const available = chromiumAvailable();

describe.skipIf(!available)("the inspector shows what was sent and what was lost", () => {
  const fixture = inspectorPage({
    prefix: "nous-inspector-sent-",
    token: "sent-token-0123456789abcdefghijklmnop",
    seed: (store) => recordFixtures(store, 200),
    consoleErrors: true,
  });
  const problems = fixture.problems;
  let page: Page;
  let seqs: SentSeqs;
  let url: string;
  beforeAll(() => {
    ({ page, seeded: seqs, url } = fixture);
  });

  const row = (seq: number) => page.locator(`#timeline li[data-seq="${seq}"]`);
  const select = async (seq: number) => {
    await row(seq).locator(".select").first().click();
    await expect.poll(() => page.locator("#event-detail").getAttribute("data-seq")).toBe(String(seq));
  };
  const field = (name: string) => page.locator(`#request-fields [data-field="${name}"] .value`).innerText();
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });

  it("shows a request as sent: system text, tools, settings, window messages, wire, stream and response ids", async () => {
    await page.goto(`${url.split("?")[0]}#/s/sent`);
    await row(seqs.request).waitFor();
    await select(seqs.request);
    await page.locator("#request-system").waitFor();
    expect(await page.locator("#request-system").innerText()).toBe(`You are terse. ${INJECTION}`);
    expect(
      await page.locator("#request-tools li").evaluateAll((items) => items.map((item) => item.dataset.tool)),
    ).toEqual(["lookup"]);
    expect(await field("wire")).toBe("openai-responses · gpt-4o");
    expect(await field("stream")).toBe("yes");
    expect(await field("temperature")).toBe("0.2");
    expect(await field("maxOutputTokens")).toBe("256");
    expect(await field("toolChoice")).toBe("required");
    expect(await field("output")).toBe("native JSON schema summary");
    expect(await field("responseId")).toBe("msg_01ABC");
    expect(await field("requestId")).toBe("req_42");
    expect(JSON.parse(await page.locator("#request-provider-options").innerText())).toEqual({
      openai: { reasoningEffort: "low" },
    });
    expect(await page.locator("#request-messages li").count()).toBe(1);
    expect(await page.locator("#request-messages li").textContent()).toBe(`userLook up milk ${INJECTION}`);
    await shot("request-as-sent.png");

    // At the fallback: the same request, over the fallback model's wire.
    await select(seqs.fallback);
    await expect.poll(() => field("wire").catch(() => "")).toBe("anthropic · claude-sonnet-4-5");
    // The second request saw the user message, the call and its result.
    await select(seqs.secondRequest);
    await expect.poll(() => page.locator("#request-messages li").count()).toBe(3);
    expect(
      await page.locator("#request-messages li").evaluateAll((items) => items.map((item) => item.dataset.role)),
    ).toEqual(["user", "assistant", "tool"]);
    expect(await field("answered")).toBe("no response (failed)");
  });

  it("shows each event's time since the run started and the durations of requests, calls and the run", async () => {
    expect(await row(seqs.retry).locator(".time").innerText()).toBe("+60 ms");
    expect(await row(seqs.response).locator(".time").innerText()).toBe("+2.51 s");
    expect(await row(seqs.request).locator(".dur").innerText()).toBe("Δ 2.50 s"); // request → response
    expect(await row(seqs.response).locator(".dur").innerText()).toBe("Δ 812 ms"); // its latency
    expect(await row(seqs.call).locator(".dur").first().innerText()).toBe("Δ 250 ms"); // call → result
    expect(await row(1).locator(".dur").innerText()).toBe("Δ 3.30 s"); // run_started → run_failed
    await select(seqs.call);
    expect(await page.locator("#detail-duration").innerText()).toBe(" · until its result 250 ms");
    await shot("times-and-durations.png");
  });

  it("marks retries, fallbacks and stream resets in the timeline (attempt, status, delay; from → to)", async () => {
    expect(await row(seqs.retry).locator(".badge").innerText()).toBe("retry 1 · 429 · wait 1.50 s");
    expect(await row(seqs.fallback).locator(".badge").innerText()).toBe(
      "fallback openai:gpt-4o → anthropic:claude-sonnet-4-5",
    );
    expect(await row(seqs.reset).locator(".badge").innerText()).toBe("stream reset");
    for (const seq of [seqs.retry, seqs.fallback, seqs.reset]) {
      expect(await row(seq).getAttribute("class")).toContain("notice-event");
    }
    await select(seqs.retry);
    const notice = await page.locator("#notice-detail").innerText();
    expect(notice).toContain("429");
    expect(notice).toContain("rate_limited: Too many requests");
    expect(notice).toContain("1.50 s");
    await select(seqs.fallback);
    expect(await page.locator('#notice-detail [data-field="route"] .value').innerText()).toBe(
      "openai:gpt-4o → anthropic:claude-sonnet-4-5",
    );
    await shot("retry-fallback-reset.png");
  });

  it("shows a failed run's error banner and a paused run's pending approvals, as text", async () => {
    const banner = page.locator("#run-banner");
    expect(await banner.getAttribute("data-state")).toBe("failed");
    expect(await banner.innerText()).toContain(`Run failed: provider_error Connection reset ${INJECTION}`);
    expect(await page.locator("#run-banner img").count()).toBe(0);
    await page.locator("#run-banner").screenshot({ path: join(ARTIFACTS, "failed-banner.png") });

    await page.click('#session-list a[href="#/s/paused"]');
    await expect.poll(() => banner.getAttribute("data-state")).toBe("paused");
    expect(await banner.innerText()).toContain("Run paused, waiting for 1 approval:");
    expect(await banner.locator('li[data-call="d1"]').innerText()).toContain('delete_file d1 {"path":"/tmp/x"}');
    await shot("paused-banner.png");
  });

  it("shows partial output: text, reasoning, incomplete tool calls marked as such (and a reset's discarded output)", async () => {
    await page.click('#session-list a[href="#/s/sent"]');
    await row(seqs.partial).waitFor();
    expect(await row(seqs.partial).locator(".badge").innerText()).toBe("partial · failed");
    await select(seqs.partial);
    const partial = page.locator("#partial-output");
    expect(await partial.locator(".partial-text").innerText()).toBe(`Milk is ${INJECTION} white`);
    expect(await partial.locator(".partial-reasoning").innerText()).toBe("The user wants a colour");
    expect(await partial.locator('li[data-call="t2"]').getAttribute("class")).toBe("incomplete");
    expect(await partial.locator('li[data-call="t2"] .badge').innerText()).toBe("incomplete — never run");
    expect(await partial.locator('li[data-call="t3"] .badge').innerText()).toBe("complete");
    expect(await page.locator("#partial-output img").count()).toBe(0);
    await shot("partial-output.png");

    await select(seqs.reset);
    expect(await page.locator("#partial-output h4").first().innerText()).toMatch(/discarded output/i);
    expect(await page.locator("#partial-output .partial-text").innerText()).toBe("Half an ans");
    expect(await page.locator('#partial-output li[data-call="x1"]').getAttribute("class")).toBe("incomplete");
  });

  it("shows each deps operation at a context_update with its old → new value", async () => {
    await select(seqs.update);
    await page.locator("#operations").waitFor();
    const table = await page
      .locator("#operations tbody tr")
      .evaluateAll((rows) => rows.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent)));
    expect(table).toEqual([
      ["set", "count", "1", "2"],
      ["merge", "prefs", '{"theme":"light","lang":"en"}', '{"theme":"dark","lang":"en"}'],
      ["append", "cart", '["milk"]', '["milk","eggs"]'],
      ["delete", "draft", '"x"', "(absent)"],
    ]);
    await shot("deps-operations.png");
  });

  it("filters the timeline by event type, keeping the selection and the counts consistent", async () => {
    await select(seqs.retry);
    const chip = (type: string) => page.locator(`#type-filter .chip[data-type="${type}"]`);
    expect(await chip("model_request").innerText()).toBe("model_request 2");
    const total = await page.locator("#timeline li.event").count();
    await chip("model_request").click();
    await chip("context_update").click();
    expect(await chip("model_request").getAttribute("aria-pressed")).toBe("false");
    await expect.poll(() => page.locator("#timeline li.event").count()).toBe(total - 4);
    expect(await page.locator('#timeline li[data-type="model_request"]').count()).toBe(0);
    expect(await page.locator("#timeline-title").innerText()).toBe(`Timeline (${total - 4} of ${total} events)`);
    // The selection survives the filter.
    expect(await row(seqs.retry).getAttribute("class")).toContain("selected");
    expect(await page.locator("#event-detail").getAttribute("data-seq")).toBe(String(seqs.retry));
    await shot("type-filter.png");
    await page.locator("#type-filter .chip-all").click();
    await expect.poll(() => page.locator("#timeline li.event").count()).toBe(total);
    expect(await row(seqs.retry).getAttribute("class")).toContain("selected");
  });

  it("links a sub-agent's session to its parent call: the parent opens with that call selected", async () => {
    await page.goto(`${url.split("?")[0]}#/s/${encodeURIComponent("sent/t1")}`);
    await page.locator("#parent-link").waitFor();
    expect(await page.locator("#parent-link").innerText()).toBe("sent, call t1");
    await page.locator("#parent-link").click();
    await expect.poll(() => page.locator("#session-head h2").innerText()).toBe("sent");
    await expect.poll(() => row(seqs.call).getAttribute("class")).toContain("selected");
    expect(await page.locator("#event-detail").getAttribute("data-seq")).toBe(String(seqs.call));
    expect(page.url()).toContain(`#/s/sent/e/${seqs.call}`);
    // The parent → child link still leads back.
    const child = page.locator('#timeline li[data-type="subagent_started"] a.child-link');
    expect(await child.getAttribute("href")).toBe(`#/s/${encodeURIComponent("sent/t1")}`);
    await shot("parent-call.png");
    expect(problems).toEqual([]);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    // Event data is text everywhere: no element came from it.
    expect(await page.locator("#main img, #main script").count()).toBe(0);
  });
});
