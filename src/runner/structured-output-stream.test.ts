import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { MODEL_SPECIFICATION_VERSION, type Model, type ModelResponse, type ModelStreamPart } from "../models/model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { forgetSecretsForTesting, registerSecret } from "../redaction/secret-registry.js";
import { tool } from "../tools/tool.js";
import type { AgentStreamEvent } from "./agent-stream-event.js";
import { OUTPUT_TOOL_NAME, resolveOutputSpec } from "./output-spec.js";
import type { OutputStreamEvent } from "./output-stream-event.js";
import { StructuredOutputStream } from "./structured-output-stream.js";

const City = z.object({ city: z.string(), population: z.number().int() });
const Books = z.array(z.object({ title: z.string(), year: z.number().int() }));

async function collect<O>(stream: AsyncIterable<AgentStreamEvent<O>>): Promise<AgentStreamEvent<O>[]> {
  const events: AgentStreamEvent<O>[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const partialsOf = (events: readonly AgentStreamEvent<unknown>[]) =>
  events.flatMap((event) => (event.kind === "output" && event.type === "partial-output" ? [event.partial] : []));
const elementsOf = (events: readonly AgentStreamEvent<unknown>[]) =>
  events.flatMap((event) =>
    event.kind === "output" && event.type === "output-element" ? [[event.index, event.element] as const] : [],
  );
/** The stream's kinds and types in order, deltas left out. */
const outline = (events: readonly AgentStreamEvent<unknown>[]) =>
  events.filter((event) => event.kind !== "delta").map((event) => `${event.kind}:${event.type}`);

/** A model whose stream sends exactly `parts` (the last one should be `finish`). */
function partsModel(parts: readonly ModelStreamPart[]): Model {
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider: "parts",
    modelId: "m",
    capabilities: { nativeOutput: true, tools: true },
    doGenerate: () => Promise.reject(new Error("unused")),
    async *doStream() {
      yield* parts;
    },
  };
}

const textResponse = (text: string): ModelResponse => ({
  content: [{ type: "text", text }],
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  finishReason: "stop",
  modelId: "m",
});

afterEach(() => forgetSecretsForTesting());

describe("agent.stream() with an output type: partial output", () => {
  it("tool mode: partials of the final_result arguments only (not of a function tool's), then the output before run_completed", async () => {
    const lookup = tool({
      name: "lookup",
      description: "Looks up a city.",
      input: z.object({ query: z.string() }),
      execute: () => "Paris, 2.1M",
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "lookup", args: { query: "biggest french city" } }] },
      { toolCalls: [{ name: OUTPUT_TOOL_NAME, args: { city: "Paris", population: 2_100_000 } }] },
    ]);
    const agent = new Agent({ model, outputType: City, outputMode: "tool", tools: [lookup] });
    const events = await collect(agent.stream("Biggest French city?"));
    // The arguments arrive in 5-character pieces: {"cit | y":"P | aris" | ,"pop | ulati | on":2 | 10000 | 0}
    expect(partialsOf(events)).toEqual([
      {},
      { city: "P" },
      { city: "Paris" },
      { city: "Paris", population: 2_100_000 },
    ]);
    const firstPartial = events.findIndex((event) => event.kind === "output");
    const lookupResult = events.findIndex((event) => event.kind === "event" && event.type === "tool_result");
    expect(lookupResult).toBeLessThan(firstPartial);
    expect(outline(events).slice(-2)).toEqual(["output:output", "event:run_completed"]);
    const final = events.at(-2);
    expect(final?.kind === "output" && final.type === "output" ? final.output : undefined).toEqual({
      city: "Paris",
      population: 2_100_000,
    });
    expect(elementsOf(events)).toEqual([]);
  });

  it("native mode: partials of the JSON text", async () => {
    const model = new ScriptedModel([{ text: '{"city":"Lyon","population":520000}' }]);
    const agent = new Agent({ model, outputType: City, outputMode: "native" });
    const events = await collect(agent.stream("?"));
    // 8-character pieces: {"city": | "Lyon"," | populati | on":5200 | 00}
    expect(partialsOf(events)).toEqual([{}, { city: "Lyon" }, { city: "Lyon", population: 520_000 }]);
    expect(outline(events).slice(-2)).toEqual(["output:output", "event:run_completed"]);
  });

  it("prompted mode: text before the object is skipped", async () => {
    const model = new ScriptedModel([{ text: 'Sure! ```json\n{"city":"Nice","population":340000}\n```' }]);
    const agent = new Agent({ model, outputType: City, outputMode: "prompted" });
    const events = await collect(agent.stream("?"));
    // 8-character pieces: Sure! `` | `json\n{" | city":"N | ice","po | …
    expect(partialsOf(events)).toEqual([{}, { city: "N" }, { city: "Nice" }, { city: "Nice", population: 340_000 }]);
    const final = events.find((event) => event.kind === "output" && event.type === "output");
    expect(final).toEqual({ kind: "output", type: "output", output: { city: "Nice", population: 340_000 } });
  });

  it.each([
    "tool",
    "native",
    "prompted",
  ] as const)("%s mode, array output: partials are the array itself (unwrapped) and each element comes once, validated", async (mode) => {
    const books = [
      { title: "Dune", year: 1965 },
      { title: "Solaris", year: 1961 },
      { title: "Ubik", year: 1969 },
    ];
    const wire = mode === "prompted" ? books : { response: books };
    const model = new ScriptedModel([
      mode === "tool" ? { toolCalls: [{ name: OUTPUT_TOOL_NAME, args: wire }] } : { text: JSON.stringify(wire) },
    ]);
    const agent = new Agent({ model, outputType: Books, outputMode: mode });
    const events = await collect(agent.stream("Three novels?"));
    expect(elementsOf(events)).toEqual(books.map((book, index) => [index, book]));
    const partials = partialsOf(events);
    expect(partials.at(-1)).toEqual(books);
    for (const partial of partials) expect(Array.isArray(partial)).toBe(true);
    // The second title shows cut short before it is whole.
    const seconds = partials.map((partial) => (partial as { title?: string }[])[1]?.title);
    expect(seconds.some((title) => title !== undefined && title !== "Solaris" && "Solaris".startsWith(title))).toBe(
      true,
    );
    // Each element comes right after the first partial that holds it whole.
    const index = events.findIndex((event) => event.kind === "output" && event.type === "output-element");
    const whole = partials.findIndex(
      (partial) => JSON.stringify((partial as unknown[])[0]) === JSON.stringify(books[0]),
    );
    expect(partialsOf(events.slice(0, index))).toHaveLength(whole + 1);
  });

  it("an element that fails its schema is not sent; the retry's partials start over", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: OUTPUT_TOOL_NAME,
            args: { response: [{ title: "A", year: 1 }, { title: "B" }, { title: "C", year: 3 }] },
          },
        ],
      },
      { toolCalls: [{ name: OUTPUT_TOOL_NAME, args: { response: [{ title: "A", year: 1 }] } }] },
    ]);
    const agent = new Agent({ model, outputType: Books, outputMode: "tool" });
    const events = await collect(agent.stream("?"));
    expect(elementsOf(events)).toEqual([
      [0, { title: "A", year: 1 }],
      [2, { title: "C", year: 3 }],
      [0, { title: "A", year: 1 }],
    ]);
    const partials = partialsOf(events);
    const lengths = partials.map((partial) => (partial as unknown[]).length);
    const restart = lengths.findIndex((length, index) => index > 0 && length < (lengths[index - 1] ?? 0));
    expect(restart).toBeGreaterThan(0);
    expect(partials[restart - 1]).toEqual([{ title: "A", year: 1 }, { title: "B" }, { title: "C", year: 3 }]);
    expect(partials[restart]).toEqual([{}]);
    expect(partials.at(-1)).toEqual([{ title: "A", year: 1 }]);
  });

  it("a JSON Schema array output: elements are checked against its items schema", async () => {
    const outputType = {
      type: "array",
      items: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    };
    const model = new ScriptedModel([{ text: '[{"n":1},{"m":2},{"n":3}]' }, { text: '[{"n":1}]' }]);
    const agent = new Agent({ model, outputType, outputMode: "prompted" });
    const events = await collect(agent.stream("?"));
    expect(elementsOf(events)).toEqual([
      [0, { n: 1 }],
      [2, { n: 3 }],
      [0, { n: 1 }],
    ]);
  });

  it("a text answer (no output type) has no output events", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ text: '{"looks":"like json"}' }]) });
    const events = await collect(agent.stream("?"));
    expect(events.filter((event) => event.kind === "output")).toEqual([]);
  });

  it("a stream reset (retry, fallback) starts the partials over", async () => {
    const json = '{"city":"Rome","population":2800000}';
    const model = partsModel([
      { type: "text-delta", text: '{"city":"Ro' },
      { type: "stream-reset", reason: "retry" },
      { type: "text-delta", text: '{"city":"R' },
      { type: "text-delta", text: 'ome","population":2800000}' },
      { type: "finish", response: textResponse(json) },
    ]);
    const agent = new Agent({ model, outputType: City, outputMode: "native" });
    const events = await collect(agent.stream("?"));
    expect(outline(events).filter((entry) => entry !== "event:model_response")).toContain("event:model_stream_reset");
    expect(partialsOf(events)).toEqual([{ city: "Ro" }, { city: "R" }, { city: "Rome", population: 2_800_000 }]);
    const reset = events.findIndex((event) => event.kind === "event" && event.type === "model_stream_reset");
    expect(partialsOf(events.slice(0, reset))).toEqual([{ city: "Ro" }]);
  });

  it("partials come from the redacted stream: a secret split across deltas never shows", async () => {
    const secret = "sk-live-0123456789abcdef";
    registerSecret(secret);
    const json = JSON.stringify({ city: `key ${secret} end`, population: 1 });
    const model = partsModel([
      { type: "text-delta", text: json.slice(0, 20) },
      { type: "text-delta", text: json.slice(20, 27) },
      { type: "text-delta", text: json.slice(27) },
      { type: "finish", response: textResponse(json) },
    ]);
    const agent = new Agent({
      model,
      outputType: z.object({ city: z.string(), population: z.number() }),
      outputMode: "native",
    });
    const events = await collect(agent.stream("?"));
    const partials = partialsOf(events);
    expect(partials.length).toBeGreaterThan(0);
    for (const partial of partials) {
      expect(JSON.stringify(partial)).not.toContain(secret);
      expect(JSON.stringify(partial)).not.toContain(secret.slice(0, 12));
    }
    expect(String((partials.at(-1) as { city: string }).city)).toMatch(/^key \[secret:sha256:[0-9a-f]+\] end$/);
  });
});

describe("StructuredOutputStream", () => {
  /** Streams an array of `count` small objects one character per delta; returns the entries the partials hold. */
  function copiedEntries(count: number): { entries: number; partials: number; last: unknown } {
    const spec = resolveOutputSpec(z.array(z.object({ id: z.number() })), "prompted", new ScriptedModel([]));
    if (spec === undefined) throw new Error("no spec");
    const events: OutputStreamEvent[] = [];
    const stream = new StructuredOutputStream(spec, (event) => events.push(event));
    const text = JSON.stringify(Array.from({ length: count }, (_, id) => ({ id })));
    for (const text of Array.from(JSON.stringify(Array.from({ length: count }, (_, id) => ({ id }))))) {
      stream.accept({ type: "text-delta", text });
    }
    stream.accept({ type: "finish", response: textResponse(text) });
    const partials = events.flatMap((event) => (event.type === "partial-output" ? [event.partial as unknown[]] : []));
    return {
      entries: partials.reduce((sum, partial) => sum + partial.length, 0),
      partials: partials.length,
      last: partials.at(-1),
    };
  }

  it("keeps the partials' copying linear: four times the output, about four times the entries copied", () => {
    const small = copiedEntries(300);
    const large = copiedEntries(1200);
    expect(large.last).toHaveLength(1200);
    // Without the budget, every element's close would copy the whole array: 16 times as much.
    expect(large.entries / small.entries).toBeLessThan(6);
    expect(large.entries).toBeLessThan(72 * JSON.stringify(large.last).length);
  });

  it("sends a partial after every change while the output is small", () => {
    const { partials } = copiedEntries(5);
    // [ then each {"id":N} opens and closes: 1 + 5 × 2 changes
    expect(partials).toBe(11);
  });
});
