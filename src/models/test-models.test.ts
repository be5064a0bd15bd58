import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { UnknownModelError } from "../errors/user-errors.js";
import { runChecked } from "../test-support/run-checked.js";
import { tool } from "../tools/tool.js";
import { FunctionModel } from "./function-model.js";
import { registerProvider, resolveModel } from "./registry.js";
import { ScriptedModel, UnexpectedModelCallError } from "./scripted-model.js";
import { TestModel } from "./test-model.js";

describe("ScriptedModel", () => {
  it("records every request, reports unused steps, and throws when called past its script", async () => {
    const model = new ScriptedModel([{ text: "one" }, { text: "two" }]);
    await new Agent({ model }).run("a");
    expect(model.requests).toHaveLength(1);
    expect(model.unusedSteps()).toBe(1);
    expect(() => model.assertAllUsed()).toThrow(UnexpectedModelCallError);
    await new Agent({ model }).run("b");
    expect(model.unusedSteps()).toBe(0);
    const error = await new Agent({ model }).run("c").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedModelCallError);
    expect((error as Error).message).toContain("request 3 has no step");
  });

  it("accepts functions of the request as steps", async () => {
    const model = new ScriptedModel([(request) => ({ text: `saw ${request.messages.length} message(s)` })]);
    expect((await new Agent({ model }).run("x")).output).toBe("saw 1 message(s)");
  });
});

describe("FunctionModel", () => {
  it("computes each answer from the request", async () => {
    const model = new FunctionModel((request, turn) => ({ text: `turn ${turn}: ${request.tools.length} tools` }));
    expect((await new Agent({ model }).run("x")).output).toBe("turn 0: 0 tools");
  });
});

describe("TestModel", () => {
  it("calls every tool once with schema-valid arguments, then answers", async () => {
    const received: unknown[] = [];
    const schema = z.object({
      text: z.string().min(3),
      count: z.number().int().min(5),
      kind: z.enum(["a", "b"]),
      tags: z.array(z.string()),
    });
    const first = tool({ name: "first", description: "x", input: schema, execute: (args) => received.push(args) });
    const second = tool({ name: "second", description: "x", input: z.object({}), execute: () => "two" });
    const model = new TestModel();
    const result = await runChecked(new Agent({ model, tools: [first, second] }), "go");
    expect(received).toHaveLength(1);
    expect(schema.safeParse(received[0]).success).toBe(true);
    expect(model.requests).toHaveLength(2);
    expect(result.output).toContain("second");
  });

  it("calls a tool whose input holds tuples, empty lists and empty strings with arguments valid for it", async () => {
    const received: unknown[] = [];
    const schema = z.object({
      point: z.tuple([z.number().min(2), z.string().max(0)]),
      rest: z.tuple([z.boolean()], z.int().max(-3)),
      none: z.array(z.string()).max(0),
      pair: z
        .array(z.enum(["x", "y", "z"]))
        .min(2)
        .max(2),
    });
    const plot = tool({ name: "plot", description: "x", input: schema, execute: (args) => received.push(args) });
    await runChecked(new Agent({ model: new TestModel(), tools: [plot] }), "go");
    expect(received).toHaveLength(1);
    expect(schema.safeParse(received[0]).success).toBe(true);
  });

  it('is what "test" resolves to', () => {
    expect(resolveModel("test")).toBeInstanceOf(TestModel);
    expect(resolveModel("test:custom").modelId).toBe("custom");
  });
});

describe("model registry", () => {
  it("resolves registered providers and names unknown ones", () => {
    registerProvider("echo", (modelId) => new FunctionModel(() => ({ text: modelId })));
    expect(resolveModel("echo:hi").provider).toBe("function");
    expect(() => resolveModel("nope:model")).toThrow(UnknownModelError);
  });
});
