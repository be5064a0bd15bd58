import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium } from "../inspector/test-support/chromium.js";
import type { RecordedRequest, WireReply } from "../models/providers/test-support/dialect-fixture.js";
import { type FakeServer, startFakeServer } from "../models/providers/test-support/fake-server.js";
import { secretPlaceholder } from "../redaction/placeholder.js";
import { repoRoot } from "../test-support/packed-project.js";

/**
 * The core entry (built dist/, as the package ships it) bundled by esbuild for the browser — no Node
 * polyfills, no externals — runs an agent with a tool in headless Chromium against a cross-origin
 * OpenAI-compatible server speaking the Chat Completions wire format (JSON and SSE), with CORS.
 */
const app = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "browser-app.js");
const cors = { "access-control-allow-origin": "*", "access-control-expose-headers": "*" };

/** A tool call for the numbers in the last user message; once the tool answered, the sum in words. */
function chatReply(request: RecordedRequest): WireReply {
  if (request.method === "OPTIONS") {
    return {
      status: 204,
      headers: {
        ...cors,
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": String(request.headers["access-control-request-headers"] ?? ""),
      },
      body: "",
    };
  }
  const body = request.body as { stream?: boolean; messages: { role: string; content: unknown }[] };
  const last = body.messages.at(-1);
  const numbers = String(body.messages.findLast((message) => message.role === "user")?.content ?? "").match(/\d+/g);
  const toolCall = {
    id: `call_${numbers?.join("_")}`,
    type: "function",
    function: { name: "add", arguments: JSON.stringify({ a: Number(numbers?.[0]), b: Number(numbers?.[1]) }) },
  };
  const text = last?.role === "tool" ? `The sum is ${JSON.parse(String(last.content)).sum}.` : undefined;
  const usage = { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 };
  if (body.stream) {
    const chunk = (delta: unknown, finish: string | null) => ({
      id: "chatcmpl-b",
      object: "chat.completion.chunk",
      created: 1_726_000_000,
      model: "gpt-4o-mini",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const events =
      text === undefined
        ? [
            chunk(
              { role: "assistant", tool_calls: [{ index: 0, ...toolCall, function: { name: "add", arguments: "" } }] },
              null,
            ),
            chunk({ tool_calls: [{ index: 0, function: { arguments: toolCall.function.arguments } }] }, null),
            chunk({}, "tool_calls"),
          ]
        : [
            chunk({ role: "assistant", content: text.slice(0, 8) }, null),
            chunk({ content: text.slice(8) }, null),
            chunk({}, "stop"),
          ];
    const payloads = [...events, { ...chunk(null, null), choices: [], usage }].map(
      (event) => `data: ${JSON.stringify(event)}\n\n`,
    );
    return {
      status: 200,
      headers: { ...cors, "content-type": "text/event-stream; charset=utf-8" },
      body: `${payloads.join("")}data: [DONE]\n\n`,
    };
  }
  const message =
    text === undefined
      ? { role: "assistant", content: null, tool_calls: [toolCall] }
      : { role: "assistant", content: text };
  return {
    status: 200,
    headers: { ...cors, "content-type": "application/json" },
    body: JSON.stringify({
      id: "chatcmpl-a",
      object: "chat.completion",
      created: 1_726_000_000,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message, finish_reason: text === undefined ? "tool_calls" : "stop" }],
      usage,
    }),
  };
}

describe.runIf(chromiumAvailable())("the core entry bundled for the browser", () => {
  let api: FakeServer;
  let site: FakeServer;
  let browser: Browser;
  let bundleBytes = 0;
  let inputs: string[] = [];

  beforeAll(async () => {
    const bundled = await build({
      entryPoints: [app],
      bundle: true,
      platform: "browser",
      format: "esm",
      target: "es2022",
      minify: true,
      keepNames: true,
      write: false,
      metafile: true,
      logLevel: "silent",
      alias: { nous: join(repoRoot, "dist", "index.js") },
    });
    const code = bundled.outputFiles[0]?.text ?? "";
    bundleBytes = Buffer.byteLength(code);
    inputs = Object.keys(bundled.metafile.inputs);
    api = await startFakeServer();
    api.setFallback(chatReply);
    site = await startFakeServer();
    site.setFallback((request) =>
      request.path === "/app.js"
        ? { status: 200, headers: { "content-type": "text/javascript" }, body: code }
        : {
            status: 200,
            headers: { "content-type": "text/html" },
            body: '<!doctype html><script type="module" src="/app.js"></script>',
          },
    );
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await site?.close();
  });

  it("bundles without Node built-ins: no SQLite store, no node: module, only the browser stub of the default store", () => {
    expect(inputs.some((input) => input.endsWith("agent/default-store.browser.js"))).toBe(true);
    const nodeOnly = /store\/sqlite|store\/postgres|node:|better-sqlite3|(^|\/)pg\//;
    expect(inputs.filter((input) => nodeOnly.test(input))).toEqual([]);
    expect(bundleBytes).toBeGreaterThan(50_000);
  });

  it("runs an agent with a tool and a MemoryStore session in Chromium: output, tool results, deps and the log", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(site.url);
    await page.waitForFunction(() => "runAgent" in window);
    const outcome = await page.evaluate(
      (url) => (window as unknown as { runAgent(api: string): Promise<Outcome> }).runAgent(url),
      api.url,
    );
    expect(problems).toEqual([]);
    expect(outcome.hasProcess).toBe(false);
    expect(outcome.first.output).toBe("The sum is 5.");
    expect(outcome.second.output).toBe("The sum is 9.");
    expect(outcome.first.deps).toEqual({ sums: [5] });
    expect(outcome.second.deps).toEqual({ sums: [5, 9] });
    expect(outcome.toolResults).toEqual([
      expect.objectContaining({ toolName: "add", result: { sum: 5 } }),
      expect.objectContaining({ toolName: "add", result: { sum: 9 } }),
    ]);
    for (const run of [outcome.first, outcome.second]) {
      expect(run.types).toEqual(
        expect.arrayContaining(["run_started", "tool_call", "tool_result", "context_update", "audit", "run_completed"]),
      );
    }
    expect(outcome.storedTypes.filter((type) => type === "run_completed")).toHaveLength(2);
    expect(outcome.streamed).toEqual(expect.arrayContaining(["delta:text-delta", "event:tool_result"]));
    expect(outcome.logText).not.toContain("sk-browser-test-key");
    // The placeholder, hashed in the browser by the portable SHA-256, is the one Node computes natively.
    expect(outcome.logText).toContain(`"key":"${secretPlaceholder("sk-browser-test-key-0123456789")}"`);
    expect(outcome.withoutStore).toEqual({ code: "no_default_store", name: "NoDefaultStoreError", isNoDefault: true });
    const posts = api.requests.filter((request) => request.method === "POST");
    expect(posts.map((request) => request.path)).toEqual(Array(4).fill("/v1/chat/completions"));
    expect(posts.map((request) => (request.body as { stream?: boolean }).stream === true)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(posts[0]?.headers.authorization).toBe("Bearer sk-browser-test-key-0123456789");
    expect(api.requests.some((request) => request.method === "OPTIONS")).toBe(true);
    await page.close();
  }, 60_000);
});

interface RunOutcome {
  output: string;
  deps: Record<string, unknown>;
  types: string[];
}

interface Outcome {
  hasProcess: boolean;
  first: RunOutcome;
  second: RunOutcome;
  toolResults: unknown[];
  storedTypes: string[];
  streamed: string[];
  logText: string;
  withoutStore: unknown;
}
