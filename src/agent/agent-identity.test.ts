import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentMismatchError } from "../errors/agent-mismatch-error.js";
import { FunctionModel } from "../models/function-model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { AgentOptions } from "../runner/types.js";
import type { SessionEvent } from "../session/events.js";
import { MemoryStore } from "../store/memory-store.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";
import { agentDefinitionHash, agentMismatch, recordedAgent } from "./agent-identity.js";

const lookup = tool({
  name: "lookup",
  description: "Look a word up",
  input: z.object({ word: z.string() }),
  execute: ({ word }) => `${word}: found`,
});
const shout = tool({
  name: "shout",
  description: "Shout",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text.toUpperCase(),
});

/** Answers every prompt with one call to `lookup`, then text (a fresh model each time: state is in the log). */
const answering = () =>
  new FunctionModel((request) =>
    request.messages.at(-1)?.role === "tool"
      ? { text: "done" }
      : { toolCalls: [{ name: "lookup", args: { word: "a" } }] },
  );

const support = (overrides: Partial<AgentOptions<Record<string, unknown>, string>> = {}) =>
  new Agent({ name: "support", model: answering(), instructions: "Help.", tools: [lookup], ...overrides });

async function snapshot(store: MemoryStore, sessionId: string): Promise<SessionEvent[]> {
  return store.read(sessionId);
}

describe("an agent's identity: its name and a hash of its definition", () => {
  it("is the same for the same instructions, tools and output type, whatever the model or tool order", () => {
    const one = new Agent({ name: "x", model: "test", instructions: "Help.", tools: [lookup, shout] });
    const two = new Agent({ name: "x", model: new ScriptedModel([]), instructions: "Help.", tools: [shout, lookup] });
    expect(one.identity).toEqual(two.identity);
    expect(one.identity.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(one.identity.name).toBe("x");
  });

  it("changes with the instructions, a tool's description or input schema, a tool more, or the output type", () => {
    const base = new Agent({ model: "test", instructions: "Help.", tools: [lookup] }).identity.hash;
    const variants = [
      new Agent({ model: "test", instructions: "Help more.", tools: [lookup] }),
      new Agent({ model: "test", instructions: "Help.", tools: [{ ...lookup, description: "Find a word" }] }),
      new Agent({
        model: "test",
        instructions: "Help.",
        tools: [tool({ ...lookup, input: z.object({ word: z.string(), lang: z.string() }) })],
      }),
      new Agent({ model: "test", instructions: "Help.", tools: [lookup, shout] }),
      new Agent({ model: "test", instructions: "Help.", tools: [lookup], outputType: z.object({ n: z.number() }) }),
    ];
    const hashes = variants.map((agent) => agent.identity.hash);
    expect(new Set([base, ...hashes]).size).toBe(variants.length + 1);
  });

  it("hashes instructions given as a function by their source text", () => {
    const schema = { type: "object", properties: { word: { type: "string" } } };
    const hash = (instructions: () => string) => agentDefinitionHash({ instructions, tools: [], outputSchema: schema });
    expect(hash(() => "Help.")).toBe(hash(() => "Help."));
    expect(hash(() => "Help.")).not.toBe(hash(() => "Help more."));
    expect(hash(() => "Help.")).not.toBe(
      agentDefinitionHash({ instructions: "Help.", tools: [], outputSchema: schema }),
    );
  });

  it("run_started records the agent's name and hash", async () => {
    const store = new MemoryStore();
    const agent = support();
    await agent.run("go", { sessionId: "s", store });
    const [started] = await store.read("s");
    expect(started).toMatchObject({
      type: "run_started",
      data: { agent: "support", agentHash: agent.identity.hash, model: "function:function" },
    });
    expect(recordedAgent(await store.read("s"))).toEqual(agent.identity);
  });
});

describe("a session goes on with the agent that ran it", () => {
  it("continuing with an agent whose hash differs is refused with AgentMismatchError naming both, and nothing is written", async () => {
    const store = new MemoryStore();
    const agent = support();
    await agent.run("go", { sessionId: "s", store });
    const before = await snapshot(store, "s");
    const other = support({ instructions: "Help, tersely." });
    const refused = await other.run("again", { sessionId: "s", store }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentMismatchError);
    const mismatch = refused as AgentMismatchError;
    expect(mismatch.code).toBe("agent_mismatch");
    expect(mismatch.recorded).toEqual(agent.identity);
    expect(mismatch.given).toEqual(other.identity);
    expect(mismatch.message).toContain(`agent "support" (definition ${agent.identity.hash.slice(0, 12)})`);
    expect(mismatch.message).toContain(`agent "support" (definition ${other.identity.hash.slice(0, 12)})`);
    expect(await snapshot(store, "s")).toEqual(before);
    // The refusal let the session go: its own agent continues it at once.
    await expect(agent.run("again", { sessionId: "s", store })).resolves.toMatchObject({ output: "done" });
  });

  it("continuing with an agent of another name is refused, even with the same definition", async () => {
    const store = new MemoryStore();
    await support().run("go", { sessionId: "s", store });
    const renamed = support({ name: "billing" });
    await expect(renamed.run("again", { sessionId: "s", store })).rejects.toThrow(
      /was run by agent "support" .* not by agent "billing"/,
    );
  });

  it("resuming an interrupted run with another agent is refused before anything is written", async () => {
    const store = new MemoryStore();
    const agent = new Agent({
      name: "mailer",
      model: answering(),
      tools: [{ ...lookup, needsApproval: true }],
    });
    await expect(agent.run("go", { sessionId: "s", store })).rejects.toMatchObject({ code: "approval_pending" });
    const before = await snapshot(store, "s");
    await expect(support().resume("s", { store })).rejects.toBeInstanceOf(AgentMismatchError);
    expect(await snapshot(store, "s")).toEqual(before);
    expect((await store.get("s"))?.status).toBe("awaiting_approval");
  });

  it("allowAgentChange records the change as an agent_changed event, and the new agent is the session's from then on", async () => {
    const store = new MemoryStore();
    const agent = support();
    await agent.run("go", { sessionId: "s", store });
    const other = support({ name: "support-2" });
    const result = await other.run("again", {
      sessionId: "s",
      store,
      allowAgentChange: { reason: "upgraded" },
    });
    const changed = result.log.filter((event) => event.type === "agent_changed");
    expect(changed.map((event) => event.data)).toEqual([
      { from: agent.identity, to: other.identity, reason: "upgraded" },
    ]);
    expect(result.messages.filter((message) => message.role === "user")).toHaveLength(2);
    await expect(other.run("third", { sessionId: "s", store })).resolves.toMatchObject({ output: "done" });
    await expect(agent.run("fourth", { sessionId: "s", store })).rejects.toBeInstanceOf(AgentMismatchError);
    // With the agent that ran it, the override records nothing.
    const same = await other.run("fifth", { sessionId: "s", store, allowAgentChange: true });
    expect(same.log.filter((event) => event.type === "agent_changed")).toHaveLength(1);
  });

  it("a resume allowed to change agents records agent_changed before run_resumed, and a later resume needs no override", async () => {
    const store = new MemoryStore();
    const gated = { ...lookup, needsApproval: true };
    const first = new Agent({ name: "mailer", model: answering(), tools: [gated] });
    await expect(first.run("go", { sessionId: "s", store })).rejects.toMatchObject({ code: "approval_pending" });
    const second = new Agent({ name: "mailer-2", model: answering(), tools: [gated] });
    await expect(second.resume("s", { store, allowAgentChange: true })).rejects.toMatchObject({
      code: "approval_pending",
    });
    const events = await store.read("s");
    const types = events.map((event) => event.type);
    expect(types.indexOf("agent_changed")).toBe(types.indexOf("run_resumed") - 1);
    expect(recordedAgent(events)).toEqual(second.identity);
    await expect(second.resume("s", { store })).rejects.toMatchObject({ code: "approval_pending" });
  });

  it("sessions recorded before agents were hashed stay usable: checked by name only, or not at all without one", async () => {
    const at = new Date().toISOString();
    const old = (agent: string | undefined): SessionEvent[] => [
      { seq: 1, at, type: "run_started", data: { runId: "r1", ...(agent ? { agent } : {}), model: "test:test" } },
      { seq: 2, at, type: "user_message", data: { content: "hi" } },
      { seq: 3, at, type: "assistant_message", data: { content: [{ type: "text", text: "hello" }] } },
      { seq: 4, at, type: "run_completed", data: { runId: "r1", output: "hello" } },
    ];
    const store = new MemoryStore();
    await store.append("named", old("support"), { expectedLastSeq: 0 });
    await store.append("unnamed", old(undefined), { expectedLastSeq: 0 });
    await expect(support().run("again", { sessionId: "named", store })).resolves.toMatchObject({ output: "done" });
    await store.append("named-2", old("support"), { expectedLastSeq: 0 });
    await expect(support({ name: "billing" }).run("again", { sessionId: "named-2", store })).rejects.toBeInstanceOf(
      AgentMismatchError,
    );
    await expect(support({ name: "billing" }).run("again", { sessionId: "unnamed", store })).resolves.toMatchObject({
      output: "done",
    });
    // From its first hashed run on, the session is checked by hash too.
    await expect(
      support({ name: "billing", instructions: "Other." }).run("more", { sessionId: "unnamed", store }),
    ).rejects.toBeInstanceOf(AgentMismatchError);
  });

  it("agentMismatch tells a caller beforehand whether an agent may continue a session", async () => {
    const store = new MemoryStore();
    const agent = support();
    await agent.run("go", { sessionId: "s", store });
    const events = await store.read("s");
    expect(agentMismatch("s", events, agent.identity)).toBeUndefined();
    expect(agentMismatch("s", events, support({ tools: [lookup, shout] }).identity)).toBeInstanceOf(AgentMismatchError);
    expect(agentMismatch("new", [], support({ name: "anyone" }).identity)).toBeUndefined();
  });
});
