import { describe, expect, it } from "vitest";
import type { ModelRequest, SessionEvent } from "../index.js";
import { ReplayTreeModel } from "./replay-tree-model.js";

const at = "2025-01-01T00:00:00.000Z";

/** A recorded conversation: the prompt, then each answer (a text) after its model_response. */
function recording(prompt: string, answers: string[]): SessionEvent[] {
  const events: { type: string; data: unknown }[] = [{ type: "user_message", data: { content: prompt } }];
  for (const text of answers) {
    events.push({ type: "model_response", data: { usage: {}, finishReason: "stop", model: "scripted:x" } });
    events.push({ type: "assistant_message", data: { content: [{ type: "text", text }] } });
  }
  return events.map((event, index) => ({ seq: index + 1, at, ...event }) as SessionEvent);
}

function request(prompt: string, answered: string[]): ModelRequest {
  const messages: ModelRequest["messages"][number][] = [{ role: "user", content: prompt }];
  for (const text of answered) {
    messages.push({ role: "assistant", content: [{ type: "text", text }] });
    messages.push({ role: "user", content: "go on" });
  }
  return { messages, tools: [], settings: {} };
}

const textOf = (response: Awaited<ReturnType<ReplayTreeModel["doGenerate"]>>) =>
  response.content.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("ReplayTreeModel", () => {
  it("answers each request from the recording of its own conversation, the root's and each sub-agent's", async () => {
    const model = new ReplayTreeModel([
      { path: ".", sessionId: "team", events: recording("lead prompt", ["L1", "L2"]) },
      { path: "r1", sessionId: "team/r1", events: recording("child prompt", ["C1"]) },
    ]);
    expect(textOf(await model.doGenerate(request("lead prompt", [])))).toBe("L1");
    expect(textOf(await model.doGenerate(request("child prompt", [])))).toBe("C1");
    expect(textOf(await model.doGenerate(request("lead prompt", ["L1"])))).toBe("L2");
    expect(model.answered).toBe(3);
    expect(model.unusedResponses()).toBe(0);
  });

  it("tells apart two conversations that start alike by the answers they have had, in any interleaving", async () => {
    const model = new ReplayTreeModel([
      { path: ".", sessionId: "p", events: recording("root", []) },
      { path: "a1", sessionId: "p/a1", events: recording("same", ["A1", "A2"]) },
      { path: "b1", sessionId: "p/b1", events: recording("same", ["B1", "B2"]) },
    ]);
    expect(textOf(await model.doGenerate(request("same", [])))).toBe("A1");
    expect(textOf(await model.doGenerate(request("same", [])))).toBe("B1");
    expect(textOf(await model.doGenerate(request("same", ["B1"])))).toBe("B2");
    expect(textOf(await model.doGenerate(request("same", ["A1"])))).toBe("A2");
    await expect(model.doGenerate(request("same", ["A1", "A2"]))).rejects.toThrow(/no recorded answer is left/);
  });
});
