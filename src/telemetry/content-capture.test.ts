import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { secretPlaceholder } from "../redaction/placeholder.js";
import { forgetSecretsForTesting } from "../redaction/secret-registry.js";
import { MemoryStore } from "../store/memory-store.js";
import { repoRoot } from "../test-support/packed-project.js";
import { tool } from "../tools/tool.js";
import { exportSessionTrace, openTelemetry, TRACER_VERSION } from "./open-telemetry.js";
import { allAttributeText, memoryTracing } from "./test-support/tracing.js";

afterEach(() => forgetSecretsForTesting());

const API_KEY = "sk-telemetry-secret-7731";

type Deps = { apiKey: string; plan: string };
const whoami = tool<z.ZodObject<{ q: z.ZodString }>, string, Deps>({
  name: "whoami",
  description: "Says which key is in use",
  input: z.object({ q: z.string() }),
  execute: ({ q }, { deps }) => `${q}: key ${deps.apiKey}`,
});

function agentWith(tracer: ReturnType<typeof memoryTracing>["tracer"], captureContent: boolean) {
  return new Agent<Deps>({
    name: "keeper",
    instructions: "Be careful.",
    model: new ScriptedModel([
      { toolCalls: [{ id: "w1", name: "whoami", args: { q: "which" } }] },
      { text: "all good", usage: { inputTokens: 7, outputTokens: 2 } },
    ]),
    tools: [whoami],
    secret: ["apiKey"],
    telemetry: openTelemetry({ tracer, captureContent }),
  });
}

describe("message content in spans", () => {
  it("is left out by default", async () => {
    const tracing = memoryTracing();
    await agentWith(tracing.tracer, false).run("hello", { deps: { apiKey: API_KEY, plan: "pro" } });
    const text = allAttributeText(tracing.exporter.getFinishedSpans());
    expect(text).not.toContain("hello");
    expect(text).not.toContain("all good");
    expect(text).not.toContain("Be careful.");
    expect(text).not.toContain("gen_ai.input.messages");
  });

  it("is captured from the log when asked for, with secret deps and what tools returned of them redacted", async () => {
    const tracing = memoryTracing();
    const store = new MemoryStore();
    await agentWith(tracing.tracer, true).run("hello", {
      deps: { apiKey: API_KEY, plan: "pro" },
      sessionId: "k",
      store,
    });
    const spans = tracing.exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((span) => span.name === name).map((span) => span.attributes);
    const [first, second] = byName("chat script");
    expect(JSON.parse(String(first?.["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "hello" }] },
    ]);
    expect(JSON.parse(String(first?.["gen_ai.system_instructions"]))).toEqual([
      { type: "text", content: "Be careful." },
    ]);
    expect(JSON.parse(String(first?.["gen_ai.output.messages"]))).toEqual([
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "w1", name: "whoami", arguments: { q: "which" } }],
        finish_reason: "tool_call",
      },
    ]);
    expect(JSON.parse(String(second?.["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "all good" }], finish_reason: "stop" },
    ]);
    const [call] = byName("execute_tool whoami");
    expect(call?.["gen_ai.tool.call.arguments"]).toBe('{"q":"which"}');
    expect(call?.["gen_ai.tool.call.result"]).toBe(`which: key ${secretPlaceholder(API_KEY)}`);

    // Neither live nor after the fact does the secret reach any attribute.
    expect(allAttributeText(spans)).not.toContain(API_KEY);
    const after = memoryTracing();
    await exportSessionTrace(store, "k", { tracer: after.tracer, captureContent: true });
    const exported = allAttributeText(after.exporter.getFinishedSpans());
    expect(exported).toContain("gen_ai.tool.call.result");
    expect(exported).not.toContain(API_KEY);
  });

  it("names the instrumentation scope with the package's version", () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
    expect(TRACER_VERSION).toBe(manifest.version);
  });
});
