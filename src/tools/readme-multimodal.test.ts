/**
 * The README's multimodal example (the ts block that starts with `// multimodal.ts`) runs as a
 * user's script against the built package, with `ANTHROPIC_BASE_URL` pointing at a local server
 * that speaks the Messages API: the PDF goes out as a document, the tool's image comes back to the
 * model inside its tool_result, and the log records it.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TSX_LOADER, temporaryDirectory } from "../cli/fixtures/cli-process.js";
import { anthropicFixture } from "../models/providers/test-support/anthropic.fixture.js";
import { type FakeServer, startFakeServer } from "../models/providers/test-support/fake-server.js";
import { repoRoot } from "../test-support/packed-project.js";

function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("```ts\n// multimodal.ts\n");
  expect(start, "the README shows multimodal.ts").toBeGreaterThan(-1);
  return readme.slice(start + "```ts\n".length, readme.indexOf("```", start + 6));
}

const toolUse = {
  id: "msg_01",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "tool_use", id: "toolu_1", name: "sales_chart", input: { year: 2025 } }],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 9 },
};

let server: FakeServer | undefined;
afterAll(() => server?.close());

describe("the README's multimodal example", () => {
  it("sends the PDF, returns the chart image to the model, and records it", async () => {
    server = await startFakeServer();
    server.enqueue(
      { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(toolUse) },
      anthropicFixture.reply("text", false),
    );
    const cwd = temporaryDirectory("nous-readme-multimodal-");
    writeFileSync(
      join(cwd, "package.json"),
      JSON.stringify({ name: "multimodal-user", private: true, type: "module" }),
    );
    const script = readmeExample();
    writeFileSync(join(cwd, "multimodal.ts"), script);
    mkdirSync(join(cwd, "node_modules"));
    symlinkSync(repoRoot, join(cwd, "node_modules", "nous"));
    const env = { ...process.env, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url };
    const stdout = await new Promise<string>((done, fail) =>
      execFile(
        process.execPath,
        ["--import", TSX_LOADER, "multimodal.ts"],
        { cwd, env, timeout: 60_000 },
        (error, out, err) => (error ? fail(new Error(`${error.message}\n${err}`)) : done(out)),
      ),
    );
    const png = /const PNG = "([^"]+)"/.exec(script)?.[1] ?? "";
    const pdf = /const PDF = "([^"]+)"/.exec(script)?.[1] ?? "";
    expect(stdout).toContain("toolName: 'sales_chart'");
    expect(stdout.replace(/\s+/g, " ")).toContain(
      `result: 'Sales by month', isError: false, content: [ { type: 'image', data: '${png}', mediaType: 'image/png' } ]`,
    );
    expect(stdout.trim().split("\n").at(-1)).toBe("Hello, wörld 👋 — ünïcode");
    const [first, second] = server.requests.map((request) => request.body as { messages: unknown[] });
    expect(first?.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Does the 2025 chart match this report?" },
        { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf }, title: "report.pdf" },
      ],
    });
    expect(second?.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "Sales by month" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
          ],
        },
      ],
    });
  }, 60_000);
});
