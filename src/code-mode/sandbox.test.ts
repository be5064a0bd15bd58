import { describe, expect, it } from "vitest";
import { CodeExecutionError, CodeLimitError } from "./errors.js";
import { resolveLimits } from "./limits.js";
import { runInSandbox, type ToolCallReply } from "./sandbox.js";

const limits = resolveLimits({ timeMs: 1000 });
const echo = async (name: string, args: unknown): Promise<ToolCallReply> => ({ ok: true, value: { name, args } });

describe("the sandbox", () => {
  it("runs a program, its tool calls and console", async () => {
    const run = await runInSandbox({
      code: "console.log('hi', {a: 1}); const r = await tools.echo({ x: 1 }); return [r, typeof process, typeof require];",
      toolNames: ["echo"],
      limits,
      onToolCall: echo,
    });
    expect(run.value).toEqual([{ name: "echo", args: { x: 1 } }, "undefined", "undefined"]);
    expect(run.console).toBe('hi {"a":1}');
  });

  it("reports failures as typed errors", async () => {
    const go = (code: string, extra = {}) =>
      runInSandbox({ code, toolNames: ["echo"], limits: { ...limits, ...extra }, onToolCall: echo });
    await expect(go("while (true) {}")).rejects.toMatchObject({ limit: "time" });
    await expect(go("throw new Error('boom')")).rejects.toThrow(CodeExecutionError);
    await expect(go("const f = () => f(); f();")).rejects.toMatchObject({ limit: "stack" });
    await expect(go("let s = []; while (true) s.push(new Array(1e5).fill(1));")).rejects.toMatchObject({
      limit: "memory",
    });
    await expect(go("return 'x'.repeat(1e6)")).rejects.toMatchObject({ limit: "output" });
    await expect(go("for (;;) console.log('spam')")).rejects.toMatchObject({ limit: "console" });
    await expect(go("await new Promise(() => {})")).rejects.toThrow(/never settles/);
    await expect(
      go("const f = () => Promise.resolve().then(f); f(); await new Promise(()=>{}) "),
    ).rejects.toBeInstanceOf(CodeLimitError);
  });
});
