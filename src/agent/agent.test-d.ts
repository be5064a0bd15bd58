import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { ContextUpdate } from "../context/context-update.js";
import type { RunContext } from "../session/run-context.js";
import { tool } from "../tools/tool.js";
import { Agent } from "./agent.js";

type Deps = { todos: string[]; count: number };

describe("types flow from schemas and deps", () => {
  it("infers a tool's execute args from its schema", () => {
    tool({
      name: "add",
      description: "x",
      input: z.object({ text: z.string(), priority: z.number().optional() }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ text: string; priority?: number | undefined }>();
        return args.text.length;
      },
    });
  });

  it("carries the deps type into the run context and ContextUpdate", () => {
    const addTodo = tool({
      name: "add_todo",
      description: "x",
      input: z.object({ text: z.string() }),
      execute: ({ text }, context: RunContext<Deps>) => {
        expectTypeOf(context.deps.todos).toEqualTypeOf<string[]>();
        // @ts-expect-error todos holds strings
        ContextUpdate.new<Deps>().append("todos", 1);
        return { result: text, update: ContextUpdate.new<Deps>().append("todos", text) };
      },
    });
    const agent = new Agent<Deps>({ model: "test", tools: [addTodo] });
    // @ts-expect-error deps are required when the deps type has required keys
    void agent.run("hi");
    void agent.run("hi", { deps: { todos: [], count: 0 } });
    // @ts-expect-error count must be a number
    void agent.run("hi", { deps: { todos: [], count: "0" } });
    expectTypeOf(agent.run("hi", { deps: { todos: [], count: 0 } }))
      .resolves.toHaveProperty("deps")
      .toEqualTypeOf<Deps>();
  });

  it("a tool returning an update for other deps does not fit the agent", () => {
    const other = tool({
      name: "other",
      description: "x",
      input: z.object({}),
      execute: (_args, _context: RunContext<{ unrelated: boolean }>) => 1,
    });
    // @ts-expect-error the tool needs deps the agent does not have
    new Agent<Deps>({ model: "test", tools: [other] });
  });

  it("infers the output type from outputType", () => {
    const agent = new Agent({ model: "test", outputType: z.object({ city: z.string() }) });
    expectTypeOf(agent.run("?")).resolves.toHaveProperty("output").toEqualTypeOf<{ city: string }>();
    const plain = new Agent({ model: "test" });
    expectTypeOf(plain.run("?")).resolves.toHaveProperty("output").toEqualTypeOf<string>();
  });
});
