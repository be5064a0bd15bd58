/**
 * Binary content survives kill -9: a child process SIGKILLed while the request carrying an image is
 * in flight leaves a SQLite log whose user message refers to a blob the store holds (never a
 * reference to nothing); a resume by another process sends the image's bytes again.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createOpenAIChatModel } from "../../src/models/providers/openai-chat.js";
import { type FakeServer, startFakeServer } from "../../src/models/providers/test-support/fake-server.js";
import { bytesToBase64 } from "../../src/platform/binary-bytes.js";
import { blobHash } from "../../src/store/blob-store.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { imageBytes } from "./blob-child.js";
import { repoRoot, startChild, tempDir, untilInterrupted } from "./harness.js";

const script = join(repoRoot, "test", "durability", "blob-child.ts");
const answer = {
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    id: "chatcmpl-blob",
    object: "chat.completion",
    created: 1_726_000_000,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content: "a pattern" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
  }),
};

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

describe("a crash while an image is on its way to the model", () => {
  it("leaves the image's blob stored before its reference, and a resume sends the bytes again", async () => {
    const dataUrl = `data:image/png;base64,${bytesToBase64(imageBytes())}`;
    server.enqueue({ reply: { status: 200, body: "" }, hangBeforeHeaders: true });
    const path = join(tempDir("nous-blob-crash-"), "sessions.db");
    const child = startChild({ script, args: [path, "s", `${server.url}/v1`] });
    const deadline = Date.now() + 30_000;
    while (server.requests.length < 1) {
      if (Date.now() > deadline) throw new Error(`no request: ${child.lines.join(" | ")}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(JSON.stringify(server.requests[0]?.body)).toContain(dataUrl);
    child.kill();
    expect((await child.exit).killed).toBe(true);

    const store = new SqliteStore({ path });
    try {
      await untilInterrupted(store, "s");
      const log = await store.read("s");
      const prompt = log.find((event) => event.type === "user_message");
      expect((prompt?.data as { content: unknown[] }).content[1]).toEqual({
        type: "image",
        mediaType: "image/png",
        blob: blobHash(imageBytes()),
        size: 64 * 1024,
      });
      expect(await store.verify()).toMatchObject({ ok: true });

      server.reset();
      server.enqueue(answer);
      const agent = new Agent({
        name: "viewer",
        model: createOpenAIChatModel("gpt-4o-mini", { baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
      });
      expect((await agent.resume("s", { store })).output).toBe("a pattern");
      expect(JSON.stringify(server.requests[0]?.body)).toContain(dataUrl);
    } finally {
      await store.close();
    }
  }, 60_000);
});
