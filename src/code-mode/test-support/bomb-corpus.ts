import type { CodeLimitName } from "../errors.js";
import type { CodeLimits } from "../limits.js";

/** Small limits so that every bomb is stopped fast. */
export const bombLimits: CodeLimits = {
  timeMs: 300,
  memoryBytes: 16 * 1024 * 1024,
  stackBytes: 128 * 1024,
  maxToolCalls: 20,
  maxOutputBytes: 64 * 1024,
  maxConsoleBytes: 4 * 1024,
};

export interface Bomb {
  readonly name: string;
  readonly code: string;
  /** The limits any one of which may legitimately stop it first. */
  readonly limits: readonly CodeLimitName[];
}

const bomb = (name: string, limits: CodeLimitName | CodeLimitName[], code: string): Bomb => ({
  name,
  code,
  limits: typeof limits === "string" ? [limits] : limits,
});

/** Programs that try to exhaust the sandbox; each must end with a `CodeLimitError` of one of its limits. */
export const bombCorpus: readonly Bomb[] = [
  bomb("infinite loop", "time", "while (true) {}"),
  bomb("busy for loop", "time", "for (;;) { Math.random(); }"),
  bomb("uncatchable interrupt", "time", "while (true) { try { while (true) {} } catch (e) {} }"),
  bomb("infinite generator", "time", "for (const x of (function* () { while (true) yield 1; })()) {}"),
  bomb("loop after a tool call", "time", "await tools.spy({}); while (true) {}"),
  bomb(
    "microtask loop",
    ["time", "memory"],
    "const f = () => Promise.resolve().then(f); f(); await new Promise(() => {});",
  ),
  bomb(
    "microtask loop, caught",
    ["time", "memory"], // its promise chain grows: memory runs out first on a fast machine
    "const f = () => Promise.resolve().then(f).catch(f); f(); await new Promise(() => {});",
  ),
  bomb(
    "microtask fan-out",
    ["time", "memory"],
    "const f = () => { Promise.resolve().then(f); Promise.resolve().then(f); }; f(); await new Promise(() => {});",
  ),
  bomb("async recursion", ["time", "memory"], "async function f() { await null; return f(); } await f();"),
  bomb("await loop", "time", "for (;;) await null;"),
  bomb("interrupts swallowed by async functions", "time", "for (;;) (async () => { for (;;); })();"),
  bomb(
    "interrupts swallowed, awaited",
    "time",
    "for (;;) { try { await (async () => { for (;;); })(); } catch (e) {} }",
  ),
  bomb("catastrophic regex", "time", 'return /^(a+)+$/.test("a".repeat(40) + "b");'),
  bomb("catastrophic regex 2", "time", 'return /(x+x+)+y/.test("x".repeat(60));'),
  bomb(
    "huge DAG stringify",
    ["time", "memory", "output"],
    "let o = {}; for (let i = 0; i < 40; i++) o = { a: o, b: o }; return JSON.stringify(o).length;",
  ),
  bomb("huge sparse join", ["time", "memory"], 'const a = []; a[2 ** 31] = 1; return a.join("xxxxxxxx").length;'),
  bomb("array from a billion", ["time", "memory"], "return Array.from({ length: 1e9 }, (_, i) => i).length;"),
  bomb("string doubling", "memory", 'let s = "x"; while (true) { s += s; s.charCodeAt(s.length - 1); }'),
  bomb("string doubling, flattened", ["memory", "time"], 'let s = "xy"; while (true) s = (s + s).split("").join("");'),
  bomb("array of arrays", ["memory", "time"], "const a = []; while (true) a.push(new Array(1e6).fill(1));"),
  bomb("huge ArrayBuffer", "memory", "return new ArrayBuffer(2 ** 30).byteLength;"),
  bomb("ArrayBuffer flood", "memory", "const a = []; while (true) a.push(new ArrayBuffer(1 << 20));"),
  bomb("typed array flood", "memory", "const a = []; while (true) a.push(new Uint8Array(1 << 20));"),
  bomb("huge Float64Array", "memory", "return new Float64Array(1e8).length;"),
  bomb("repeat", "memory", 'return "x".repeat(2 ** 28).length;'),
  bomb("object key flood", ["memory", "time"], 'const o = {}; for (let i = 0; ; i++) o["k" + i] = i;'),
  bomb("map flood", ["memory", "time"], "const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });"),
  bomb("closure flood", ["memory", "time"], "const a = []; for (let i = 0; ; i++) a.push(() => i);"),
  bomb(
    "caught OOM, again",
    ["memory", "time"],
    "const a = []; for (;;) { try { a.push(new Array(1e6).fill(0)); } catch (e) {} }",
  ),
  bomb("recursion", "stack", "const f = () => f(); f();"),
  bomb("recursion with work", "stack", "function f(n) { return f(n + 1) + 1; } f(0);"),
  bomb("toString recursion", "stack", "const o = { toString() { return String(this); } }; String(o);"),
  bomb("getter recursion", "stack", "const o = { get x() { return this.x; } }; return o.x;"),
  bomb("proxy recursion", "stack", "const p = new Proxy({}, { get: (t, k, r) => r[k] }); return p.x;"),
  bomb("deep JSON.parse", "stack", 'return JSON.parse("[".repeat(1e5) + "]".repeat(1e5));'),
  bomb("deep result", ["stack", "time"], "let o = []; for (let i = 0; i < 2e4; i++) o = [o]; return o;"),
  bomb("deep result, under the guest stack", "stack", "let o = []; for (let i = 0; i < 1000; i++) o = [o]; return o;"),
  bomb("deep tool arguments", "stack", "let o = {}; for (let i = 0; i < 1000; i++) o = { o }; await tools.spy(o);"),
  bomb("big result string", "output", 'return "x".repeat(1e6);'),
  bomb("big result array", "output", "return Array.from({ length: 1e5 }, (_, i) => i);"),
  bomb("big result field", "output", 'return { big: "y".repeat(70000) };'),
  bomb("big tool arguments", "output", 'await tools.spy({ s: "x".repeat(1e6) });'),
  bomb("log flood", "console", 'for (;;) console.log("spam");'),
  bomb("one huge log", "console", 'console.log("x".repeat(1e5));'),
  bomb("error log flood", "console", 'while (true) console.error(new Error("e"));'),
  bomb("tool call loop", "toolCalls", "for (let i = 0; i < 1000; i++) await tools.spy({ i });"),
  bomb("tool call fan-out", "toolCalls", "await Promise.all(Array.from({ length: 100 }, () => tools.spy({})));"),
  bomb("tool calls without await", "toolCalls", "for (;;) tools.spy({}).catch(() => {});"),
];
