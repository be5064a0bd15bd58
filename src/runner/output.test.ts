import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { OutputValidationError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { TestModel } from "../models/test-model.js";
import { runChecked } from "../test-support/run-checked.js";
import { OUTPUT_TOOL_NAME } from "./output-spec.js";

const City = z.object({ city: z.string(), population: z.number().int() });

describe("structured output", () => {
  it("tool mode: a synthetic final tool, with a failing-then-corrected retry", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: OUTPUT_TOOL_NAME, args: { city: "Paris", population: "many" } }] },
      { toolCalls: [{ name: OUTPUT_TOOL_NAME, args: { city: "Paris", population: 2_100_000 } }] },
    ]);
    const agent = new Agent({ model, outputType: City, outputMode: "tool" });
    const result = await runChecked(agent, "Biggest French city?");
    expect(result.output).toEqual({ city: "Paris", population: 2_100_000 });
    expect(model.requests[0]?.tools.map((definition) => definition.name)).toEqual([OUTPUT_TOOL_NAME]);
    expect(model.requests[0]?.outputToolName).toBe(OUTPUT_TOOL_NAME);
    const feedback = model.requests[1]?.messages.at(-1);
    expect(feedback).toMatchObject({ role: "tool", isError: true });
    expect(String((feedback as { result: unknown }).result)).toMatch(/population/);
  });

  it("native mode: the schema goes to the provider and the JSON text is validated", async () => {
    const model = new ScriptedModel([{ text: '{"city":"Lyon"}' }, { text: '{"city":"Lyon","population":520000}' }]);
    const agent = new Agent({ model, outputType: City, outputMode: "native" });
    const result = await runChecked(agent, "?");
    expect(result.output).toEqual({ city: "Lyon", population: 520_000 });
    expect(model.requests[0]?.output).toMatchObject({ type: "json", schema: { type: "object" } });
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "user" });
  });

  it("prompted mode: instructions carry the schema and JSON is extracted from the text", async () => {
    const model = new ScriptedModel([{ text: 'Sure! ```json\n{"city":"Nice","population":340000}\n```' }]);
    const agent = new Agent({ model, outputType: City, outputMode: "prompted", instructions: "Be exact." });
    const result = await runChecked(agent, "?");
    expect(result.output).toEqual({ city: "Nice", population: 340_000 });
    expect(model.requests[0]?.instructions).toMatch(/^Be exact\.\n\n.*JSON/s);
    expect(model.requests[0]?.output).toBeUndefined();
    expect(model.requests[0]?.tools).toEqual([]);
  });

  it("auto mode picks native when the model supports it, tool otherwise", async () => {
    const native = new ScriptedModel([{ text: '{"city":"A","population":1}' }], {
      capabilities: { nativeOutput: true },
    });
    expect((await new Agent({ model: native, outputType: City }).run("?")).output).toEqual({
      city: "A",
      population: 1,
    });
    expect(native.requests[0]?.output).toBeDefined();
    const toolOnly = new ScriptedModel(
      [{ toolCalls: [{ name: OUTPUT_TOOL_NAME, args: { city: "B", population: 2 } }] }],
      {
        capabilities: { nativeOutput: false },
      },
    );
    expect((await new Agent({ model: toolOnly, outputType: City }).run("?")).output).toEqual({
      city: "B",
      population: 2,
    });
  });

  it("non-object schemas are wrapped for tool mode and unwrapped in the result", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: OUTPUT_TOOL_NAME, args: { response: ["a", "b"] } }] }]);
    const agent = new Agent({ model, outputType: z.array(z.string()), outputMode: "tool" });
    expect((await runChecked(agent, "?")).output).toEqual(["a", "b"]);
  });

  it("text instead of the final tool is sent back, and exhausting outputRetries is a typed error", async () => {
    const model = new ScriptedModel([{ text: "Paris" }, { text: "Paris!" }]);
    const agent = new Agent({ model, outputType: City, outputMode: "tool", outputRetries: 1 });
    const error = await agent.run("?").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).log?.filter((event) => event.type === "user_message")).toHaveLength(2);
  });

  it("the built-in TestModel produces output valid for the schema", async () => {
    for (const outputMode of ["tool", "native"] as const) {
      const result = await runChecked(new Agent({ model: new TestModel(), outputType: City, outputMode }), "?");
      expect(City.safeParse(result.output).success).toBe(true);
    }
  });
});
