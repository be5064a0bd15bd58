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
    // wall time enough for a busy machine wherever another limit, not the clock, must stop the program
    const go = (code: string, extra = { timeMs: 30_000 }) =>
      runInSandbox({ code, toolNames: ["echo"], limits: { ...limits, ...extra }, onToolCall: echo });
    await expect(go("while (true) {}", limits)).rejects.toMatchObject({ limit: "time" });
    await expect(go("throw new Error('boom')")).rejects.toThrow(CodeExecutionError);
    await expect(go("const f = () => f(); f();")).rejects.toMatchObject({ limit: "stack" });
    await expect(go("let s = []; while (true) s.push(new Array(1e5).fill(1));")).rejects.toMatchObject({
      limit: "memory",
    });
    await expect(go("return 'x'.repeat(1e6)")).rejects.toMatchObject({ limit: "output" });
    await expect(go("for (;;) console.log('spam')")).rejects.toMatchObject({ limit: "console" });
    await expect(go("await new Promise(() => {})")).rejects.toThrow(/never settles/);
    await expect(
      go("const f = () => Promise.resolve().then(f); f(); await new Promise(()=>{}) ", limits),
    ).rejects.toBeInstanceOf(CodeLimitError);
  });

  it("gives a program all of memoryBytes of heap, and stops it at the first allocation past them", async () => {
    const go = (chunks: number) =>
      runInSandbox({
        code: `const a = []; for (let i = 0; i < ${chunks}; i++) a.push(new Uint8Array(1 << 20)); return a.length;`,
        toolNames: [],
        limits: resolveLimits({ timeMs: 30_000, memoryBytes: 32 << 20 }),
        onToolCall: echo,
      });
    // the runtime's own few hundred KiB come out of the same heap
    await expect(go(30)).resolves.toMatchObject({ value: 30 });
    await expect(go(33)).rejects.toMatchObject({ limit: "memory", allowed: 32 << 20 });
  });

  it("stops the program with the memory limit when a tool's reply does not fit in its heap", async () => {
    const run = runInSandbox({
      code: "try { await tools.echo({}); } catch (e) {} return 'went on';",
      toolNames: ["echo"],
      limits: resolveLimits({ timeMs: 30_000, memoryBytes: 16 << 20 }),
      onToolCall: async () => ({ ok: true, value: "x".repeat(24 << 20) }),
    });
    await expect(run).rejects.toMatchObject({ limit: "memory", message: expect.stringContaining("reply") });
  });

  it("stops a program that catches its failed allocation and goes on", async () => {
    const run = runInSandbox({
      code: "const a = []; for (;;) { try { a.push(new Array(1e6).fill(0)); } catch (e) { a.length = 0; } }",
      toolNames: [],
      limits: resolveLimits({ timeMs: 30_000, memoryBytes: 32 << 20 }),
      onToolCall: echo,
    });
    await expect(run).rejects.toMatchObject({ limit: "memory", message: expect.stringContaining("memoryBytes") });
  });

  it("cuts a long error text to maxOutputBytes inside the sandbox, saying how much was cut", async () => {
    const go = (code: string) =>
      runInSandbox({ code, toolNames: [], limits: { ...limits, maxOutputBytes: 1000 }, onToolCall: echo }).catch(
        (error: unknown) => error as Error,
      );
    const ascii = await go('throw new Error("x".repeat(1e6))');
    expect(ascii).toBeInstanceOf(CodeExecutionError);
    expect(Buffer.byteLength((ascii as Error).message)).toBeLessThanOrEqual(1000);
    expect((ascii as Error).message).toMatch(
      /^Error: x+ … \[\d+ more characters cut: error text is limited to maxOutputBytes, 1000 bytes\]$/,
    );
    const cut = Number(/\[(\d+) more/.exec((ascii as Error).message)?.[1]);
    expect((ascii as Error).message.indexOf(" … [") + cut).toBe("Error: ".length + 1e6);
    const wide = await go('throw "é😀".repeat(1e5)');
    expect(Buffer.byteLength((wide as Error).message)).toBeLessThanOrEqual(1000);
    expect((wide as Error).message).not.toMatch(/\uFFFD/);
    expect(await go('throw new Error("short")')).toMatchObject({ message: "Error: short" });
  });
});
