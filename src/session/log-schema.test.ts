import { readFileSync } from "node:fs";
import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildLogSchema } from "../../scripts/generate-log-schema.mjs";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { LOG_SCHEMA_FILE, sessionEventCheck } from "../test-support/log-schema-check.js";
import { tool } from "../tools/tool.js";
import { AgentContext } from "./agent-context.js";
import { currentEventCheck, setEventCheck } from "./event-check.js";
import { isBuiltinEvent, type SessionEvent } from "./events.js";

const committed = JSON.parse(readFileSync(LOG_SCHEMA_FILE, "utf8")) as {
  $schema: string;
  $defs: Record<string, Schema> & { BuiltinEventType: { enum: string[] } };
};
const logValidator = new Validator(committed as Schema, "2020-12", false);
const validLog = (events: unknown): boolean => logValidator.validate(JSON.parse(JSON.stringify(events))).valid;
const at = "2026-01-02T03:04:05.678Z";

async function scriptedRunLog(): Promise<readonly SessionEvent[]> {
  const note = tool({
    name: "note",
    description: "adds a note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => ({
      result: { saved: text },
      update: ContextUpdate.new<{ notes: string[] }>().append("notes", text).logEvent("note_added", { text }),
    }),
  });
  const model = new ScriptedModel([{ toolCalls: [{ name: "note", args: { text: "milk" } }] }, { text: "Saved." }]);
  const agent = new Agent<{ notes: string[] }>({ model, tools: [note], instructions: "Take notes." });
  return (await agent.run("remember milk", { deps: { notes: [] } })).log;
}

describe("schema/session-log.json", () => {
  it("is what `npm run schema` generates from src/session/events.ts", () => {
    const fresh = buildLogSchema();
    expect(fresh, "schema/session-log.json is out of date: run `npm run schema` and commit the file").toEqual(
      committed,
    );
  });

  it("is a draft 2020-12 schema with one definition per built-in event type", () => {
    expect(committed.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const types = committed.$defs.BuiltinEventType.enum;
    expect(types).toContain("model_request");
    expect(types).toContain("run_paused");
    for (const type of types) {
      expect(isBuiltinEvent({ seq: 1, at, type, data: {} } as SessionEvent), type).toBe(true);
      expect(committed.$defs[type], type).toMatchObject({ properties: { type: { const: type } } });
    }
  });

  it("accepts the log of a scripted run with a tool, a context update and a logEvent record", async () => {
    const log = await scriptedRunLog();
    expect(log.map((event) => event.type)).toContain("note_added");
    expect(validLog(log)).toBe(true);
  });

  it("refuses a typo'd, missing or mistyped field of a built-in event, and a typo'd envelope field", () => {
    const result = { toolCallId: "c1", toolName: "note", result: 1, isError: false };
    expect(validLog([{ seq: 1, at, type: "tool_result", data: result }])).toBe(true);
    expect(validLog([{ seq: 1, at, type: "tool_result", data: { ...result, isErorr: true } }])).toBe(false);
    expect(validLog([{ seq: 1, at, type: "system_message", data: {} }])).toBe(false);
    expect(validLog([{ seq: 1, at, type: "system_message", data: { content: 7 } }])).toBe(false);
    expect(validLog([{ seq: 1.5, at, type: "system_message", data: { content: "x" } }])).toBe(false);
    expect(validLog([{ seq: 1, at, type: "system_message", data: { content: "x" }, runid: "r" }])).toBe(false);
  });

  it("accepts any data under a custom type, and a property typed unknown left out (JSON drops undefined)", () => {
    expect(validLog([{ seq: 1, at, type: "audit", data: [1, "two", null] }])).toBe(true);
    expect(validLog([{ seq: 1, at, type: "audit", data: null, runId: "r", sessionId: "s" }])).toBe(true);
    expect(validLog([{ seq: 1, at, type: "audit" }])).toBe(false);
    expect(
      validLog([{ seq: 1, at, type: "tool_result", data: { toolCallId: "c", toolName: "t", isError: false } }]),
    ).toBe(true);
  });

  it("keeps the closed and open types of the definitions: model_request windows are pairs, provider options are open", () => {
    const request = { model: "m", iteration: 1, messageCount: 2, window: [[1, 2]] };
    const options = { settings: { providerOptions: { openai: { store: true } } } };
    expect(validLog([{ seq: 3, at, type: "model_request", data: { ...request, ...options } }])).toBe(true);
    expect(validLog([{ seq: 3, at, type: "model_request", data: { ...request, window: [[1, 2, 3]] } }])).toBe(false);
    expect(validLog([{ seq: 3, at, type: "model_request", data: { ...request, settings: { temp: 1 } } }])).toBe(false);
  });
});

describe("the event check", () => {
  it("sees every event an AgentContext appends, context updates included, and costs nothing unset", () => {
    const seen: string[] = [];
    const previous = currentEventCheck();
    setEventCheck((event) => seen.push(`${event.seq}:${event.type}`));
    try {
      AgentContext.create({ deps: { n: 0 }, messages: [{ role: "user", content: "hi" }] })
        .logEvent("audit", { ok: true })
        .withContextUpdate({ n: 1 }, [{ op: "set", key: "n", value: 1 }]);
      setEventCheck(undefined);
      AgentContext.create({ deps: {} }).logEvent("after", {});
    } finally {
      setEventCheck(previous);
    }
    expect(seen).toEqual(["1:user_message", "2:audit", "3:context_update"]);
  });

  it("the schema check names the event type, its seq and the failing path", () => {
    const check = sessionEventCheck();
    const event = { seq: 4, at, type: "model_response", data: { model: "m", finishReason: "stop", latencyMs: 1 } };
    expect(() => check(event as SessionEvent)).toThrow(
      /"model_response" \(seq 4\)[\s\S]*#\/data: Instance does not have required property "usage"/,
    );
    const typo = { seq: 2, at, type: "user_message", data: { content: "hi", contnet: "x" } };
    expect(() => check(typo as SessionEvent)).toThrow(/#\/data: Property "contnet"/);
    expect(() => check({ seq: 5, at, type: "audit", data: { any: ["thing"] } })).not.toThrow();
  });
});
