/**
 * Hostile programs that try to reach a host object, file, network or process from the sandbox.
 * Each gets a prelude with `harm(x)`: given any candidate object, it tries every way to do damage
 * through it (write the canary file, fetch the canary server, set a canary global, read the secret)
 * and returns what it saw — so a leak shows up as a host-side canary or as the secret in the result.
 */
export interface Canaries {
  readonly file: string;
  readonly url: string;
}

export function prelude({ file, url }: Canaries): string {
  return `
const FILE = ${JSON.stringify(file)}, URL_ = ${JSON.stringify(url)};
function harm(x) {
  const out = [];
  const t = (f) => { try { out.push(String(f())); } catch (e) { out.push("x"); } };
  if (x === null || x === undefined) return "none";
  t(() => { x.__nousCanary = "pwned"; return 1; });
  t(() => x.process.mainModule.require("fs").writeFileSync(FILE, "pwned"));
  t(() => x.mainModule.require("fs").writeFileSync(FILE, "pwned"));
  t(() => x.require("fs").writeFileSync(FILE, "pwned"));
  t(() => x.require("child_process").execSync("touch " + FILE));
  t(() => x.getBuiltinModule("fs").writeFileSync(FILE, "pwned"));
  t(() => x.process.getBuiltinModule("fs").writeFileSync(FILE, "pwned"));
  t(() => x.writeFileSync(FILE, "pwned"));
  t(() => x.fetch(URL_));
  t(() => x.process.env.NOUS_SECRET);
  t(() => x.env.NOUS_SECRET);
  t(() => x.nousSecret);
  t(() => x.binding("fs"));
  t(() => x.std.open(FILE, "w").puts("pwned"));
  t(() => x.open(FILE, "w").puts("pwned"));
  t(() => x.os.exec(["touch", FILE]));
  t(() => x.exec(["touch", FILE]));
  return out.join(",");
}
const probe = (f) => { try { const r = f(); return harm(r) + "|" + typeof r; } catch (e) { return "blocked:" + String(e && e.name); } };
const aprobe = async (f) => { try { const r = await f(); return harm(r) + "|" + typeof r; } catch (e) { return "blocked:" + String(e && e.name); } };
`;
}

const constructorChains = [
  `return probe(() => (function(){}).constructor("return process")())`,
  `return probe(() => (function(){}).constructor("return this")())`,
  `return probe(() => this.constructor.constructor("return process")())`,
  `return probe(() => this.constructor.constructor("return this")())`,
  `return probe(() => ({}).constructor.constructor("return globalThis")())`,
  `return probe(() => tools.spy.constructor("return process")())`,
  `return probe(() => tools.spy.constructor.constructor("return require")())`,
  `return probe(() => console.log.constructor("return this")())`,
  `return probe(() => (async function(){}).constructor("return process")())`,
  `return probe(() => (function*(){}).constructor("return this")().next().value)`,
  `return probe(() => Object.getPrototypeOf(async function*(){}).constructor("return require")())`,
  `return probe(() => [].map.constructor("return this")())`,
  `return probe(() => Error.constructor("return process")())`,
  `return probe(() => Promise.constructor("return this")())`,
  `return probe(() => Reflect.construct(Function, ["return process"])())`,
  `return probe(() => new Function("return this")())`,
  `return probe(() => Function.prototype.constructor("return module")())`,
  `return probe(() => Symbol.constructor.constructor("return this")())`,
  `return probe(() => JSON.parse.constructor("return process.mainModule")())`,
  `return probe(() => (() => {}).constructor("return globalThis.process")())`,
  `const p = tools.spy({}); return probe(() => p.constructor.constructor("return process")())`,
  `return probe(() => Object.getOwnPropertyDescriptor(globalThis, "tools").value.constructor)`,
];

const globalsProbing = [
  ...[
    "process",
    "require",
    "module",
    "exports",
    "__dirname",
    "__filename",
    "Buffer",
    "fetch",
    "XMLHttpRequest",
    "setTimeout",
    "setImmediate",
    "queueMicrotask",
    "WebAssembly",
    "SharedArrayBuffer",
    "Atomics",
    "Deno",
    "Bun",
    "std",
    "os",
    "scriptArgs",
    "print",
    "navigator",
    "performance",
    "self",
    "parentPort",
    "workerData",
    "postMessage",
    "Worker",
    "nousSecret",
    "__nousCanary",
  ].map((name) => `return probe(() => globalThis[${JSON.stringify(name)}]) + typeof ${name}`),
  `return Object.getOwnPropertyNames(globalThis).map((name) => name + ":" + probe(() => globalThis[name])).join(";")`,
  `return Reflect.ownKeys(globalThis).map(String).join(",")`,
  `const seen = []; for (const k in globalThis) seen.push(k + probe(() => globalThis[k])); return seen`,
  `return [harm(globalThis), harm(this), harm(tools), harm(console)]`,
  `return Object.getOwnPropertyNames(Object.getOwnPropertyDescriptors(console)).map((k) => harm(console[k]))`,
];

const dynamicCode = [
  `return await aprobe(() => import("fs"))`,
  `return await aprobe(() => import("node:child_process"))`,
  `return await aprobe(() => import("std"))`,
  `return await aprobe(() => import("os"))`,
  `return await aprobe(() => import("data:text/javascript,export default globalThis.process"))`,
  `return await aprobe(() => import("file:///etc/passwd"))`,
  `return await aprobe(() => eval("import('fs')"))`,
  `return probe(() => eval("process"))`,
  `return probe(() => (0, eval)("this"))`,
  `return probe(() => eval("(function(){ return this })()"))`,
  `return probe(() => { with (globalThis) { return process; } })`,
  `return probe(() => { with (new Proxy({}, { has: () => true, get: (t, k) => k === Symbol.unscopables ? undefined : globalThis[k] })) { return require; } })`,
  `return probe(() => { with ({ constructor: 1 }) { return eval("this.constructor.constructor('return process')()"); } })`,
  `return probe(() => new Function("return import.meta")())`,
  `return probe(() => require("fs"))`,
  `return probe(() => module.require("fs"))`,
  `return probe(() => process.binding("fs"))`,
  `return probe(() => new Worker("data:,"))`,
];

const pollution = [
  `Object.prototype.polluted = "yes"; Array.prototype.polluted = "yes"; await tools.spy({ a: 1 }); return [].polluted`,
  `Object.prototype.toJSON = function () { return { hijacked: true }; }; return await tools.spy({ a: 1 })`,
  `Array.prototype.toJSON = () => "evil"; return await tools.spy({ list: [1, 2] })`,
  `Object.defineProperty(Object.prototype, "then", { get() { return (r) => r("thenable") }, configurable: true }); return await tools.spy({})`,
  `Object.prototype.__defineGetter__("polluted", () => "g"); await tools.spy({}); return "done"`,
  `JSON.stringify = () => "{not json"; return await tools.spy({ a: 1 })`,
  `JSON.parse = () => globalThis; return await tools.spy({ a: 1 })`,
  `Function.prototype.call = function () { return "hijacked"; }; return await tools.spy({ a: 1 })`,
  `Array.prototype[Symbol.iterator] = function* () { yield "evil"; }; return await tools.spy({ a: [1] })`,
  `Object.freeze = (x) => x; Object.defineProperty = () => {}; return await tools.spy({ a: 1 })`,
  `String.prototype.toString = () => "x"; Number.prototype.toJSON = () => "n"; return await tools.spy({ n: 1, s: "s" })`,
  `return await tools.spy(JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}'))`,
  `return await tools.spy({ ["__proto__"]: { polluted: "yes" }, nested: { __proto__: { polluted: "yes" } } })`,
  `tools.spy = () => "replaced"; delete globalThis.tools; return typeof tools`,
  `console.log = () => {}; Object.setPrototypeOf(tools, { spy: () => 1 }); return await tools.spy({})`,
  `globalThis.__nousCanary = "pwned"; globalThis.nousSecret = 1; return await tools.spy({ canary: globalThis.__nousCanary })`,
];

const hostileArguments = [
  `return await tools.spy(new Proxy({}, { get: (t, k) => (k === "toJSON" ? () => ({ p: 1 }) : undefined), ownKeys: () => ["a"] }))`,
  `return await tools.spy(new Proxy({ a: 1 }, { ownKeys() { throw new Error("trap"); } }))`,
  `let n = 0; return await tools.spy({ get a() { n++; return n; } })`,
  `return await tools.spy({ toJSON() { return { swapped: true }; } })`,
  `return await tools.spy({ then(resolve) { resolve(globalThis); } })`,
  `return await tools.spy({ fn() {}, sym: Symbol("s"), undef: undefined, nan: NaN, inf: -Infinity, neg: -0 })`,
  `try { return await tools.spy({ big: 10n }); } catch (e) { return "blocked:" + e.name; }`,
  `const a = {}; a.self = a; try { return await tools.spy(a); } catch (e) { return "blocked:" + e.name; }`,
  `return await tools.spy({ date: new Date(0), map: new Map([[1, 2]]), set: new Set([1]), re: /x/g, err: new Error("e") })`,
  `return await tools.spy({ u8: new Uint8Array([1, 2]), buf: new ArrayBuffer(4), view: new DataView(new ArrayBuffer(2)) })`,
  `const sparse = []; sparse[5] = 1; return await tools.spy({ sparse })`,
  `return await tools.spy(Object.create({ inherited: "yes" }, { own: { value: 1, enumerable: true } }))`,
  `return await tools.spy(Object.assign(Object.create(null), { bare: true }))`,
  `return await tools.spy({ "constructor": "x", "hasOwnProperty": 1, "toString": null })`,
  `return await tools.spy(undefined)`,
  `return await tools.spy(null)`,
  `return await tools.spy([1, 2, 3])`,
  `return await tools.spy("a string")`,
  `return await tools.spy({ s: "\\u2028\\u2029\\ud800" })`,
  `class Evil { toJSON() { return { evil: 1 }; } } return await tools.spy({ e: new Evil() })`,
  `const r = await tools.leaky({}); return [typeof r.fn, Object.keys(r), harm(r)]`,
];

const speciesAndPromises = [
  `class P extends Promise {} P.prototype.then = function (a, b) { return Promise.prototype.then.call(this, a, b); }; return await P.resolve(tools.spy({ a: 1 }))`,
  `Object.defineProperty(Promise, Symbol.species, { get() { return function (exec) { exec(() => {}, () => {}); }; } }); return await tools.spy({ a: 1 })`,
  `const then = Promise.prototype.then; Promise.prototype.then = function (a, b) { return then.call(this, (v) => a(harm(v)), b); }; return await tools.spy({ a: 1 })`,
  `Promise.resolve = () => globalThis; Promise.all = () => globalThis; return await Promise.all([tools.spy({})])`,
  `Array[Symbol.species]; class A extends Array { static get [Symbol.species]() { return Object; } } return await tools.spy({ a: A.from([1]).map((x) => x) })`,
  `return { then(resolve) { resolve(typeof process); } }`,
  `return new Proxy({}, { get: () => { throw new Error("trap"); }, ownKeys: () => { throw new Error("trap"); } })`,
  `return { toJSON() { return this.constructor.constructor("return typeof process")(); } }`,
  `const p = tools.spy({}); p.then = (r) => r(globalThis); return harm(await p)`,
  `await null; return await Promise.race([tools.spy({ race: 1 }), new Promise((r) => r("other"))])`,
];

const errorTricks = [
  `Error.prepareStackTrace = (e, frames) => frames.map((f) => harm(f.getThis && f.getThis())); return String(new Error("x").stack)`,
  `Error.captureStackTrace && Error.captureStackTrace({}); return new Error("x").stack`,
  `try { null.f(); } catch (e) { return probe(() => e.constructor.constructor("return process")()); }`,
  `try { await tools.nope({}); } catch (e) { return [e.name, probe(() => e.constructor.constructor("return process")()), String(e.stack)]; }`,
  `try { await tools.spy({ fail: true }); } catch (e) { return [String(e.message), probe(() => e.__proto__.constructor.constructor("return require")())]; }`,
  `function f() { return f.caller; } return probe(() => f())`,
  `return probe(() => tools.spy.caller) + probe(() => console.log.arguments)`,
  `return probe(() => arguments.callee.caller)`,
  `const e = new Error(); e.name = { toString() { return typeof process; } }; throw e`,
  `throw new Proxy({}, { get() { return () => typeof require; } })`,
  `throw { toString() { return this.constructor.constructor("return typeof process")(); } }`,
  `try { const f = () => f(); f(); } catch (e) { return probe(() => e.constructor.constructor("return process")()); }`,
];

const wasmAndShared = [
  `return probe(() => new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])))`,
  `return probe(() => new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer)`,
  `return probe(() => new SharedArrayBuffer(8))`,
  `return probe(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(8)), 0, 0, 10))`,
  `const b = new ArrayBuffer(8); return probe(() => b.transfer ? b.transfer(16) : structuredClone(b))`,
  `return probe(() => new Uint8Array(1 << 20).buffer.constructor.constructor("return process")())`,
];

const breakouts = [
  `return 1 }); globalThis.__nousCanary = "pwned"; (async function () {`,
  `return 1 })(), harm(this), (async function () {`,
  `/* */ }); harm(globalThis); (function () { //`,
  `return typeof import.meta`,
  `return "\\u2028"; }); harm(this); (function(){`,
  `return Symbol.for("nodejs.util.inspect.custom").toString()`,
  `Object.defineProperty(globalThis, "console", { value: 1 }); return typeof console`,
  `return [typeof tools, Object.isFrozen(tools), Object.getOwnPropertyNames(tools)]`,
  `return [Date.now() > 0, typeof Date, typeof Math.random()]`,
  `let leaked = []; for (const name of Object.getOwnPropertyNames(tools)) leaked.push(harm(tools[name]), probe(() => tools[name].prototype)); return leaked`,
];

/** Every program of the escape corpus (bodies, without the prelude). */
export const escapeCorpus: readonly string[] = [
  ...constructorChains,
  ...globalsProbing,
  ...dynamicCode,
  ...pollution,
  ...hostileArguments,
  ...speciesAndPromises,
  ...errorTricks,
  ...wasmAndShared,
  ...breakouts,
];
