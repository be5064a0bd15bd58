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

const mib = 1024 * 1024;
/** Ten to the sixth levels of nesting: about 94 MB of heap as arrays, 78 MB as objects. */
const nested = "let a = []; for (let i = 0; i < 1e6; i++) a = [a];";

export interface StructureBomb {
  readonly name: string;
  readonly code: string;
  readonly limits: CodeLimits;
  /** The one limit the program really exceeds, which must be the one named. */
  readonly limit: CodeLimitName;
}

/** A structure given the memory it needs (128 MiB) and a minute: only its stack can run out. */
function roomy(name: string, code: string): StructureBomb {
  return { name, code, limits: { timeMs: 60_000, memoryBytes: 128 * mib }, limit: "stack" };
}

/**
 * Programs that build deep or large structures, each stopped by the limit it really exceeds: with
 * room for the structure, the walk overflows the stack; without, the heap is full. Wall time is
 * generous, so that a busy machine does not turn a memory or stack stop into a time stop.
 */
export const structureBombs: readonly StructureBomb[] = [
  roomy("10⁶-level nesting, built then returned", `${nested} return a;`),
  roomy("10⁶-level nesting, built then JSON.stringify'd", `${nested} return JSON.stringify(a).length;`),
  roomy(
    "10⁶-level nesting, built then recursively walked",
    `${nested} const depth = (x) => (x.length ? 1 + depth(x[0]) : 0); return depth(a);`,
  ),
  roomy(
    "10⁶-level nested objects, built then JSON.stringify'd",
    "let o = {}; for (let i = 0; i < 1e6; i++) o = { o }; return JSON.stringify(o).length;",
  ),
  {
    name: "10⁶-level nesting in the default 64 MiB",
    code: `${nested} return JSON.stringify(a).length;`,
    limits: { timeMs: 60_000 },
    limit: "memory",
  },
  {
    name: "a flat array of numbers past memoryBytes",
    code: "const a = []; for (let i = 0; i < 1e7; i++) a.push(i); return a.length;",
    limits: { timeMs: 60_000, memoryBytes: 32 * mib },
    limit: "memory",
  },
  {
    name: "a flat array of strings past memoryBytes, the failure caught",
    code: 'const a = []; try { for (let i = 0; ; i++) a.push("s" + i); } catch (e) {} return a.length;',
    limits: { timeMs: 60_000, memoryBytes: 32 * mib },
    limit: "memory",
  },
  {
    name: "10⁶-level nesting without the time to build it",
    code: `${nested} return 1;`,
    limits: { timeMs: 100, memoryBytes: 128 * mib },
    limit: "time",
  },
];

/** Budgets small enough that every output bomb overflows them many times over. */
export const outputLimits: CodeLimits = { timeMs: 60_000, maxOutputBytes: 16 * 1024, maxConsoleBytes: 4 * 1024 };

/**
 * Programs that try to send the model and the log more than their output budget through error
 * text or console output: each must come back within `maxOutputBytes` + `maxConsoleBytes`.
 */
export const outputBombs: readonly { readonly name: string; readonly code: string }[] = [
  { name: "huge error message", code: 'throw new Error("x".repeat(16 * 1024 * 1024));' },
  { name: "huge error name", code: 'const e = new Error("m"); e.name = "N".repeat(1e7); throw e;' },
  { name: "huge thrown string", code: 'throw "s".repeat(1e7);' },
  { name: "huge thrown object text", code: 'throw { toString() { return "t".repeat(1e7); } };' },
  {
    name: "huge message getter",
    code: 'class Big extends Error { get message() { return "g".repeat(1e7); } } throw new Big();',
  },
  { name: "huge rejection awaited", code: 'await Promise.reject(new Error("r".repeat(1e7)));' },
  { name: "huge multi-byte error message", code: 'throw new Error("é😀".repeat(3e6));' },
  { name: "huge console.log in a loop", code: 'for (;;) console.log("x".repeat(1e6));' },
  {
    name: "huge console.error with a throw",
    code: 'console.error("e".repeat(1e7)); throw new Error("y".repeat(1e7));',
  },
  {
    name: "console near its budget, then a huge throw",
    code: 'for (let i = 0; i < 39; i++) console.log("z".repeat(100)); throw new Error("w".repeat(1e7));',
  },
  {
    name: "huge throw after a tool call took effect",
    code: 'await tools.spy({}); console.log("c".repeat(4000)); throw new Error("a".repeat(1e7));',
  },
];
