/**
 * The example chat (examples/ui-chat) in headless Chromium: the page runs the `ai` package's own
 * `Chat` machinery and `DefaultChatTransport` against `uiChatHandler`, on a model whose every
 * streamed part waits on a gate the test opens. Streamed text arrives part by part and completely;
 * a tool call shows with its result; an approval is answered by a click and the run resumes; a
 * connection cut mid-answer is resumed with a cursor, and a page reloaded mid-answer replays it,
 * both ending with exactly the answer's text (no loss, no duplicate).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DemoModel, echoText, ManualGate } from "../../examples/ui-chat/demo-model.js";
import { type ChatServer, startChatServer } from "../../examples/ui-chat/server.js";
import { chromiumAvailable, launchChromium } from "../inspector/test-support/chromium.js";

const available = chromiumAvailable();

/** The word-by-word prefixes of a text, as the demo model streams it. */
function prefixes(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  return words.map((_, index) => words.slice(0, index + 1).join(""));
}

describe.skipIf(!available)("a chat page on the AI SDK's Chat against uiChatHandler, in Chromium", () => {
  const gate = new ManualGate();
  let server: ChatServer;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startChatServer({ port: 0, model: new DemoModel(gate.wait), cuttable: true });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    gate.open();
    await browser?.close();
    await server?.close();
  });

  afterEach(() => {
    gate.close();
    expect(problems).toEqual([]);
  });

  async function openChat(chatId: string, mode = ""): Promise<Page> {
    const page = await browser.newPage();
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}?chat=${chatId}${mode === "" ? "" : `&mode=${mode}`}`);
    await page.waitForSelector("body[data-ready]");
    return page;
  }

  async function send(page: Page, text: string): Promise<void> {
    await page.fill("#prompt", text);
    await page.press("#prompt", "Enter");
  }

  /** The text parts of the chat's last assistant message, as the `Chat` holds them. */
  const textParts = (page: Page) =>
    page.evaluate(() => {
      const last = window.chat?.messages.findLast((message) => message.role === "assistant");
      return (last?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));
    });

  const waitForText = (page: Page, text: string) =>
    page.waitForFunction((expected) => {
      const last = window.chat?.messages.findLast((message) => message.role === "assistant");
      const parts = last?.parts ?? [];
      return parts.map((part) => (part.type === "text" ? part.text : "")).join("") === expected;
    }, text);

  const waitForStatus = (page: Page, status: string) =>
    page.waitForFunction((expected) => window.chat?.status === expected, status);

  it("streams text part by part, completely", async () => {
    const page = await openChat("stream");
    await send(page, "hello");
    const expected = echoText("hello");
    for (const prefix of prefixes(expected)) {
      gate.release(1);
      await waitForText(page, prefix);
      // Shown on the page as it streams.
      expect(await page.locator("li[data-role=assistant] .text").last().textContent()).toBe(prefix);
    }
    await waitForStatus(page, "ready");
    expect(await textParts(page)).toEqual([expected]);
    await page.close();
  });

  it("shows a tool call with its result", async () => {
    gate.open();
    const page = await openChat("weather");
    await send(page, "what is the weather in Paris?");
    const tool = page.locator('.tool[data-tool-call-id="call-weather"][data-state="output-available"]');
    await tool.waitFor();
    expect(await tool.locator(".name").textContent()).toBe("get_weather");
    expect(JSON.parse((await tool.locator(".input").textContent()) ?? "")).toEqual({ city: "Paris" });
    expect(JSON.parse((await tool.locator(".output").textContent()) ?? "")).toEqual({
      city: "Paris",
      celsius: 21,
      sky: "sunny",
    });
    await waitForStatus(page, "ready");
    expect(await textParts(page)).toEqual(["Let me look that up.", "It is 21 degrees and sunny in Paris."]);
    await page.close();
  });

  it("asks for approval, takes the answer from a click, and resumes the run to its end", async () => {
    gate.open();
    for (const [chatId, button, state, answer] of [
      ["pay-yes", "approve", "output-available", "Invoice INV-7 is paid."],
      ["pay-no", "deny", "output-denied", "The invoice was not paid."],
    ] as const) {
      const page = await openChat(chatId);
      await send(page, "please pay the invoice");
      await page.locator(`.tool[data-tool-call-id="call-pay"] button.${button}`).click();
      await page.locator(`.tool[data-tool-call-id="call-pay"][data-state="${state}"]`).waitFor();
      await waitForText(page, answer);
      await waitForStatus(page, "ready");
      const log = await server.store.read(chatId);
      const decided = log.find((event) => event.type === "approval_decided");
      expect(decided?.data).toEqual({
        toolCallId: "call-pay",
        approved: button === "approve",
        ...(button === "deny" ? { reason: "denied on the page" } : {}),
      });
      expect(log.at(-1)?.type).toBe("run_completed");
      // One assistant message for the whole turn: the resumed run went on in the paused one.
      expect(await page.evaluate(() => window.chat?.messages.map((message) => message.role))).toEqual([
        "user",
        "assistant",
      ]);
      await page.close();
    }
  });

  it("asks for a sub-agent's approval as a tool part of its own, answered by a click, and the whole run resumes", async () => {
    gate.open();
    const page = await openChat("refund");
    const posts: string[] = [];
    page.on("response", (response) => {
      if (response.request().method() === "POST") posts.push(`${response.status()}`);
    });
    await send(page, "please refund the invoice");
    const asked = page.locator('.tool[data-state="approval-requested"]');
    await asked.waitFor();
    expect(await asked.locator(".name").textContent()).toBe("issue_refund");
    const id = await asked.getAttribute("data-tool-call-id");
    expect(id).toMatch(/^refund\/.+\/call-refund$/);
    await asked.locator("button.approve").click();
    await waitForText(page, "The refund desk says: Refunded INV-7.");
    await waitForStatus(page, "ready");
    const child = (id as string).slice(0, -"/call-refund".length);
    const decided = (await server.store.read(child)).find((event) => event.type === "approval_decided");
    expect(decided?.data).toEqual({ toolCallId: "call-refund", approved: true });
    expect((await server.store.read("refund")).at(-1)?.type).toBe("run_completed");
    expect(await page.evaluate(() => window.chat?.messages.map((message) => message.role))).toEqual([
      "user",
      "assistant",
    ]);
    // Answered once: the page did not send the answer again after the run ended.
    expect(await page.locator(`.tool[data-tool-call-id="${id}"]`).getAttribute("data-state")).toBe(
      "approval-responded",
    );
    await page.close();
  });

  it("resumes after the connection is cut mid-answer, with a cursor: nothing lost, nothing twice", async () => {
    const page = await openChat("cut");
    const reconnects: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "GET" && request.url().includes("/stream")) reconnects.push(request.url());
    });
    await send(page, "tell me more");
    const expected = echoText("tell me more");
    const steps = prefixes(expected);
    gate.release(3);
    await waitForText(page, steps[2] as string);
    expect(server.cut()).toBe(1);
    await waitForStatus(page, "error");
    // The run goes on without a reader: two more words reach the server's live buffer meanwhile.
    gate.release(2);
    void page.evaluate(() => window.chat?.resumeStream());
    await waitForText(page, steps[4] as string);
    gate.open();
    await waitForText(page, expected);
    await waitForStatus(page, "ready");
    expect(reconnects).toHaveLength(1);
    const sent = new URL(reconnects[0] as string).searchParams;
    expect([sent.get("part"), sent.get("open")]).toEqual(["0", "text"]);
    expect(Number(sent.get("chars"))).toBe((steps[2] as string).length);
    // The resumed stream went on in the same text part.
    expect(await textParts(page)).toEqual([expected]);
    expect(await page.evaluate(() => window.chat?.messages.length)).toBe(2);
    await page.close();
  });

  it("resumes after a cut with the transport as it comes: the replay replaces the half-received message", async () => {
    const page = await openChat("cut-replay", "replay");
    const reconnects: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "GET" && request.url().includes("/stream")) reconnects.push(request.url());
    });
    await send(page, "and again");
    const expected = echoText("and again");
    const steps = prefixes(expected);
    gate.release(2);
    await waitForText(page, steps[1] as string);
    expect(server.cut()).toBe(1);
    await waitForStatus(page, "error");
    gate.release(1);
    void page.evaluate(() => window.chat?.resumeStream());
    await waitForText(page, steps[2] as string);
    gate.open();
    await waitForText(page, expected);
    await waitForStatus(page, "ready");
    expect(reconnects.map((url) => new URL(url).search)).toEqual([""]);
    expect(await textParts(page)).toEqual([expected]);
    expect(await page.evaluate(() => window.chat?.messages.length)).toBe(2);
    await page.close();
  });

  it("replays the answer in flight to a page reloaded mid-answer, from the log and the live buffer", async () => {
    const first = await openChat("reload");
    await send(first, "what is the weather?");
    // The first step (text and tool call) commits; the second answer is held after two words.
    gate.release(9);
    await waitForText(first, "Let me look that up.It is ");
    const reloaded = await openChat("reload");
    await waitForText(reloaded, "Let me look that up.It is ");
    expect(await reloaded.locator('.tool[data-tool-call-id="call-weather"]').getAttribute("data-state")).toBe(
      "output-available",
    );
    gate.open();
    const expected = ["Let me look that up.", "It is 21 degrees and sunny in Paris."];
    for (const page of [first, reloaded]) {
      await waitForText(page, expected.join(""));
      await waitForStatus(page, "ready");
      expect(await textParts(page)).toEqual(expected);
      expect(await page.evaluate(() => window.chat?.messages.map((message) => message.id))).toEqual([
        expect.any(String),
        "nous-a-2",
      ]);
    }
    await first.close();
    await reloaded.close();
  });
});
