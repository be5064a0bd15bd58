import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import type { ModelStreamPart } from "../models/model.js";
import { MemoryStore } from "../store/memory-store.js";
import { ScriptedModel } from "../testing.js";
import { tool } from "../tools/tool.js";
import { uiChatHandler } from "./ui-chat-handler.js";
import { parseChatRequest, parseCursor } from "./ui-chat-request.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

const transfer = tool({
  name: "transfer",
  description: "Move money",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => ({ moved: amount }),
});

const userMessage = (text: string, id = "c1") => ({
  id,
  trigger: "submit-message",
  messages: [
    { id: "old", role: "user", parts: [{ type: "text", text: "ignored history" }] },
    { id: "u", role: "user", parts: [{ type: "text", text }] },
  ],
});

const approvalAnswer = (approvalId: string, approved: boolean, id = "c1") => ({
  id,
  trigger: "submit-message",
  messages: [
    { id: "u", role: "user", parts: [{ type: "text", text: "pay" }] },
    {
      id: "a",
      role: "assistant",
      parts: [
        { type: "step-start" },
        {
          type: "tool-transfer",
          toolCallId: "t1",
          state: "approval-responded",
          input: { amount: 5 },
          approval: { id: approvalId, approved },
        },
      ],
    },
  ],
});

function post(body: unknown, raw?: string): Request {
  return new Request("http://chat.test/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: raw ?? JSON.stringify(body),
  });
}

async function chunks(response: Response): Promise<UIMessageChunk[]> {
  const text = await response.text();
  const frames = text.split("\n\n").filter((frame) => frame !== "");
  expect(frames.at(-1)).toBe("data: [DONE]");
  return frames.slice(0, -1).map((frame) => JSON.parse(frame.slice("data: ".length)) as UIMessageChunk);
}

const textOf = (list: readonly UIMessageChunk[]) =>
  list.map((chunk) => (chunk.type === "text-delta" ? chunk.delta : "")).join("");

function payAgent() {
  return new Agent({
    model: new ScriptedModel([{ toolCalls: [{ id: "t1", name: "transfer", args: { amount: 5 } }] }, { text: "Paid." }]),
    tools: [transfer],
  });
}

describe("uiChatHandler", () => {
  it("runs a new user message in the chat's session and streams it; the client's history is ignored", async () => {
    const store = new MemoryStore();
    const agent = new Agent({ model: new ScriptedModel([{ text: "Hello there." }]) });
    const handle = uiChatHandler({ agent, store });
    const response = await handle(post(userMessage("hi")));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const list = await chunks(response);
    expect(list[0]).toEqual({ type: "start", messageId: "nous-a-2" });
    expect(textOf(list)).toBe("Hello there.");
    expect(list.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const users = (await store.read("c1")).filter((event) => event.type === "user_message");
    expect(users.map((event) => event.data)).toEqual([{ content: "hi" }]);
  });

  it("records approval answers and resumes the paused run in the same assistant message", async () => {
    const store = new MemoryStore();
    const handle = uiChatHandler({ agent: payAgent(), store });
    const paused = await chunks(await handle(post(userMessage("pay"))));
    expect(paused.filter((chunk) => chunk.type === "tool-approval-request")).toEqual([
      { type: "tool-approval-request", approvalId: "t1", toolCallId: "t1" },
    ]);
    const resumed = await chunks(await handle(post(approvalAnswer("t1", true))));
    expect(resumed[0]).toEqual({ type: "start", messageId: "nous-a-2" });
    expect(resumed).toContainEqual({ type: "tool-output-available", toolCallId: "t1", output: { moved: 5 } });
    expect(textOf(resumed)).toBe("Paid.");
    const log = await store.read("c1");
    expect(log.find((event) => event.type === "approval_decided")?.data).toEqual({ toolCallId: "t1", approved: true });
    expect(log.at(-1)?.type).toBe("run_completed");
  });

  it("refuses bad requests with a 400 and a typed error, recording nothing", async () => {
    const store = new MemoryStore();
    const handle = uiChatHandler({ agent: payAgent(), store });
    await chunks(await handle(post(userMessage("pay"))));
    const before = await store.read("c1");
    const cases: [Request, string][] = [
      [post(undefined, "{not json"), "invalid_body"],
      [post({ id: "c1", messages: [] }), "invalid_body"],
      [post({ ...userMessage("again"), trigger: "regenerate-message" }), "unsupported_trigger"],
      [post(userMessage("   ")), "empty_message"],
      [post(approvalAnswer("forged", true)), "unknown_approval"],
      [post({ ...userMessage("x"), id: "" }), "invalid_chat_id"],
    ];
    for (const [request, problem] of cases) {
      const response = await handle(request);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: { code: "invalid_chat_request", message: expect.any(String), problem },
      });
    }
    expect(await store.read("c1")).toEqual(before);
  });

  it("refuses a second message while the session's run streams (409), and answers 204 to a reconnect when none does", async () => {
    const store = new MemoryStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = new ScriptedModel([{ text: "Slow answer." }]);
    const slow = Object.assign(Object.create(model) as ScriptedModel, {
      async *doStream(request: Parameters<ScriptedModel["doStream"]>[0]): AsyncGenerator<ModelStreamPart> {
        await held;
        yield* model.doStream(request);
      },
    });
    const handle = uiChatHandler({ agent: new Agent({ model: slow }), store });
    expect((await handle(new Request("http://chat.test/api/chat/c1/stream"))).status).toBe(204);
    const first = await handle(post(userMessage("one")));
    const busy = await handle(post(userMessage("two")));
    expect(busy.status).toBe(409);
    expect((await busy.json()).error.code).toBe("chat_run_active");
    // A reconnect while it runs replays the answer from its start.
    const reconnect = handle(new Request("http://chat.test/api/chat/c1/stream"));
    release();
    const [live, replay] = await Promise.all([chunks(first), reconnect.then(chunks)]);
    expect(textOf(live)).toBe("Slow answer.");
    expect(textOf(replay)).toBe("Slow answer.");
    expect(replay[0]).toEqual({ type: "start", messageId: "nous-a-2" });
    expect((await handle(new Request("http://chat.test/api/chat/c1/stream"))).status).toBe(204);
  });

  it("serves a reconnect with a cursor from the log once the run has ended: only what follows the cursor", async () => {
    const store = new MemoryStore();
    const handle = uiChatHandler({ agent: new Agent({ model: new ScriptedModel([{ text: "Hello world" }]) }), store });
    const full = await chunks(await handle(post(userMessage("hi"))));
    const cursors = full.flatMap((chunk) => (chunk.type === "data-nous-cursor" ? [chunk.data] : []));
    const mid = cursors.find((cursor) => cursor.part === 0 && cursor.chars > 0);
    if (mid === undefined) throw new Error("no cursor inside the answer");
    expect(mid.open).toBe("text");
    const url = `http://chat.test/api/chat/c1/stream?seq=${mid.seq}&part=${mid.part}&chars=${mid.chars}&open=text`;
    const rest = await chunks(await handle(new Request(url)));
    expect(textOf(rest)).toBe("Hello world".slice(mid.chars));
    expect(rest.some((chunk) => chunk.type === "text-start")).toBe(false);
    expect(rest.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    const last = cursors.at(-1) as { seq: number; part: number; chars: number };
    const nothing = `http://chat.test/api/chat/c1/stream?seq=${last.seq + 10}&part=0&chars=0`;
    expect((await handle(new Request(nothing))).status).toBe(204);
    expect((await handle(new Request("http://chat.test/api/chat/c1/stream?seq=x&part=0&chars=0"))).status).toBe(400);
  });
});

describe("parseChatRequest and parseCursor", () => {
  it("reads the last message only: user text, or the approval answers of the assistant's tool parts", () => {
    expect(parseChatRequest(userMessage("a"))).toEqual({ type: "message", chatId: "c1", text: "a" });
    expect(parseChatRequest(approvalAnswer("t1", false))).toEqual({
      type: "approvals",
      chatId: "c1",
      answers: [{ approvalId: "t1", approved: false }],
    });
  });

  it("reads a cursor from all three parameters or none", () => {
    expect(parseCursor(new URLSearchParams(""))).toBeUndefined();
    expect(parseCursor(new URLSearchParams("seq=4&part=-1&chars=0"))).toEqual({ seq: 4, part: -1, chars: 0 });
    expect(() => parseCursor(new URLSearchParams("seq=4"))).toThrow(/cursor/);
    expect(() => parseCursor(new URLSearchParams("seq=4&part=-2&chars=0"))).toThrow(/cursor/);
    expect(parseCursor(new URLSearchParams("seq=4&part=0&chars=2&open=text"))).toEqual({
      seq: 4,
      part: 0,
      chars: 2,
      open: "text",
    });
    expect(() => parseCursor(new URLSearchParams("seq=4&part=0&chars=2&open=tool"))).toThrow(/cursor/);
  });
});
