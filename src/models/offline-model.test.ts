import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools } from "../cli/builtin-assistant.js";
import {
  Agent,
  ContextUpdate,
  MemoryStore,
  OFFLINE_NOTICE,
  OfflineModel,
  type RunContext,
  resolveModel,
  tool,
} from "../index.js";
import { findExpression, findFolder, findHour, findTask } from "./offline-parse.js";

const clock = () => new Date("2026-12-02T08:30:00.000Z");

function assistant(root = process.cwd()) {
  return new Agent({ model: new OfflineModel(), tools: builtinTools({ root, clock }) });
}

type Todo = { id: number; text: string };
type Deps = { todos: Todo[]; preferences: { reminders: { channel: string; hour: number } } };

/** The tools of examples/main.ts. */
function todoKeeper() {
  const addTodo = tool({
    name: "add_todo",
    description: "Add an item to the user's todo list",
    input: z.object({ text: z.string().min(1) }),
    execute: ({ text }, context: RunContext<Deps>) => ({
      result: { added: context.deps.todos.length + 1 },
      update: ContextUpdate.new<Deps>().append("todos", { id: context.deps.todos.length + 1, text }),
    }),
  });
  const setReminder = tool({
    name: "set_reminder",
    description: "Choose when and how to remind the user",
    input: z.object({ channel: z.enum(["email", "sms"]), hour: z.number().int().min(0).max(23) }),
    execute: ({ channel, hour }) => ({
      result: `Reminders by ${channel} at ${hour}:00`,
      update: ContextUpdate.new<Deps>().merge("preferences", { reminders: { channel, hour } }),
    }),
  });
  const countOpen = tool({
    name: "count_open",
    description: "Count the open todo items",
    input: z.object({}),
    execute: (_args, context: RunContext<Deps>) => ({ open: context.deps.todos.length }),
  });
  return new Agent<Deps>({ model: new OfflineModel(), tools: [addTodo, setReminder, countOpen] });
}

describe("the offline parser", () => {
  it("finds arithmetic written with symbols or words", () => {
    expect(findExpression("What is 2^10?")).toBe("2^10");
    expect(findExpression("what's 12 times 7")).toBe("12 * 7");
    expect(findExpression("Compute (2 + 3) * 4, please.")).toBe("(2 + 3) * 4");
    expect(findExpression("What is 15% of 80?")).toBe("(15 / 100) * 80");
    expect(findExpression("17 % 5")).toBe("17 % 5");
    expect(findExpression("2 to the power of 10")).toBe("2 ^ 10");
    expect(findExpression("100 divided by 8")).toBe("100 / 8");
    expect(findExpression("3 x 4")).toBe("3 * 4");
    expect(findExpression("Remind me to buy 2 eggs")).toBeUndefined();
    expect(findExpression("hi")).toBeUndefined();
    expect(findExpression("Add a note: dentist on 2026-12-02")).toBeUndefined();
    expect(findExpression("Add a note: dentist on 12/02/2026")).toBeUndefined();
  });

  it("finds the hour, the task and the folder", () => {
    expect(findHour("by SMS in the morning")).toBe(8);
    expect(findHour("at 7pm")).toBe(19);
    expect(findHour("at 7:30 am")).toBe(7);
    expect(findHour("at 12am")).toBe(0);
    expect(findHour("at 19:00")).toBe(19);
    expect(findHour("in the evening")).toBe(18);
    expect(findHour("at noon")).toBe(12);
    expect(findHour("buy 3 apples")).toBeUndefined();
    expect(findTask("Remind me to buy milk, by SMS in the morning.")).toBe("buy milk");
    expect(findTask("Remind me to call Ana at 7pm")).toBe("call Ana");
    expect(findTask("Add eggs to my todo list")).toBe("eggs");
    expect(findTask("What is 2^10?")).toBeUndefined();
    expect(findFolder("List the files here")).toBe(".");
    expect(findFolder("List the files in src")).toBe("src");
    expect(findFolder("What files are in this folder?")).toBe(".");
  });
});

describe("OfflineModel", () => {
  it("calls the calculator with the prompt's expression and answers with the value", async () => {
    const result = await assistant().run("What is 2^10?");
    expect(result.output).toBe("2^10 = 1024");
    const calls = result.log.filter((event) => event.type === "tool_result");
    expect(calls.map((event) => (event.data as { toolName: string }).toolName)).toEqual(["calculate"]);
    expect((await assistant().run("What is 12 times 7?")).output).toBe("12 * 7 = 84");
    expect((await assistant().run("And 17 % 5?")).output).toBe("17 % 5 = 2");
  });

  it("answers the time from the tool, keeps and lists notes across turns, and lists files", async () => {
    expect((await assistant().run("What time is it?")).output).toMatch(
      /^It is Wednesday, December 2, 2026 at .+\(.+\)\.$/,
    );
    const store = new MemoryStore();
    const agent = assistant();
    const added = await agent.run("Add a note: call Bob", { sessionId: "n", store });
    expect(added.output).toBe('Noted: "call Bob" (note 1).');
    expect((await agent.run("Remind me to buy milk", { sessionId: "n", store })).output).toBe(
      'Noted: "buy milk" (note 2).',
    );
    expect((await agent.run("List my notes", { sessionId: "n", store })).output).toBe(
      "You have 2 notes: 1. call Bob; 2. buy milk.",
    );
    const root = mkdtempSync(join(tmpdir(), "nous-offline-"));
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "README.md"), "hello");
    expect((await assistant(root).run("List the files here")).output).toBe(
      ". holds 2 entries: README.md (5 bytes), src/.",
    );
  });

  it("turns the main job's prompt into a todo and an SMS reminder in the morning", async () => {
    const result = await todoKeeper().run("Remind me to buy milk, by SMS in the morning.", {
      deps: { todos: [], preferences: { reminders: { channel: "email", hour: 9 } } },
    });
    expect(result.deps).toEqual({
      todos: [{ id: 1, text: "buy milk" }],
      preferences: { reminders: { channel: "sms", hour: 8 } },
    });
    expect(result.output).toBe('Added "buy milk" to your todo list (item 1). I will remind you by SMS at 8:00.');
  });

  it("answers a greeting by saying what it is and what it can do", async () => {
    const result = await assistant().run("hi");
    expect(result.output.split("\n")[0]).toMatch(/^Hello! I am the offline model\. I can help with arithmetic/);
    expect(result.output.split("\n").at(-1)).toBe(OFFLINE_NOTICE);
    const notOnlyAGreeting = await assistant().run("hi, write me a poem");
    expect(notOnlyAGreeting.output).toContain("I did not understand that offline.");
  });

  it("says in one line that it is offline and how to use a real model when it does not understand", async () => {
    const result = await assistant().run("Write me a poem about the sea");
    expect(result.output).toContain("I did not understand that offline.");
    expect(result.output).toContain('arithmetic ("What is 2^10?")');
    expect(result.output.split("\n").at(-1)).toBe(OFFLINE_NOTICE);
    expect(OFFLINE_NOTICE).toContain("NOUS_MODEL=provider:model");
    expect(OFFLINE_NOTICE).toContain("--model");
    expect(result.log.some((event) => event.type === "tool_result")).toBe(false);
  });

  it('reports a tool\'s failure, gives session-unique call ids, and resolves from "offline"', async () => {
    const failed = await assistant().run("What is 1/0?");
    expect(failed.output).toMatch(/^calculate failed: .*Division by zero/);
    const store = new MemoryStore();
    const agent = assistant();
    await agent.run("What is 1+1?", { sessionId: "ids", store });
    await agent.run("What is 2+2?", { sessionId: "ids", store });
    const ids = (await store.read("ids"))
      .filter((event) => event.type === "tool_result")
      .map((event) => (event.data as { toolCallId: string }).toolCallId);
    expect(new Set(ids).size).toBe(2);
    expect(resolveModel("offline")).toBeInstanceOf(OfflineModel);
    expect(resolveModel("offline").modelId).toBe("rules");
  });
});
