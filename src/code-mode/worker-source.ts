/**
 * The source of the worker thread that runs one program in QuickJS (WebAssembly). It is plain
 * JavaScript run with `new Worker(source, { eval: true })`, so it works the same from the compiled
 * package and from TypeScript sources under a test runner.
 *
 * Protocol (worker → host): `ready`, `call { id, name, args }` (args: JSON text made in the guest),
 * `console { text }`, then `done { ok, value }` or `done { ok: false, error: { kind, limit?, message } }`.
 * Host → worker: `result { id, ok, value }` (value: JSON text, or the error text).
 * The host terminates the worker after `done`, and on its own deadline: nothing here is disposed.
 * Limits trip here, before anything leaves the guest: text is measured in the guest and copied out
 * only within its budget (result, error text, console, arguments), and the heap refuses to grow.
 */
export const workerSource = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { corePath, variantPath, module: wasmModule, code, toolNames, limits, plan } = workerData;

const BOOTSTRAP = ${"`"}(function (hostCall, hostLog, names) {
  "use strict";
  const stringify = JSON.stringify, parse = JSON.parse, freeze = Object.freeze, toText = String;
  const apply = Reflect.apply, then = Promise.prototype.then, join = Array.prototype.join;
  const slice = String.prototype.slice, Promise_ = Promise, reject = Promise.reject;
  const describe = function (value) {
    try {
      if (value instanceof Error) return toText(value.name) + ": " + toText(value.message);
    } catch (_) {}
    try { return toText(value); } catch (_) { return "[unprintable value]"; }
  };
  // The text of a thrown value, its first max characters only (so that no more crosses to the
  // host), and its full length. Parts are measured apart: a huge name and message are never joined.
  const excerpt = function (value, max) {
    let parts;
    try {
      if (value instanceof Error) parts = [toText(value.name), ": ", toText(value.message)];
    } catch (_) {}
    if (parts === undefined) parts = [describe(value)];
    let head = "", length = 0;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      length += part.length;
      if (head.length < max) head += part.length > max - head.length ? apply(slice, part, [0, max - head.length]) : part;
    }
    return [head, length];
  };
  const format = function (value) {
    if (typeof value === "string") return value;
    try {
      if (value instanceof Error) return describe(value);
      const text = stringify(value);
      return typeof text === "string" ? text : describe(value);
    } catch (_) { return describe(value); }
  };
  const tools = Object.create(null);
  for (const name of names) {
    // Not an async function: an interrupt inside an async function only rejects its promise.
    tools[name] = freeze(function (args) {
      let text;
      try {
        text = stringify(args === undefined ? {} : args);
        if (typeof text !== "string") throw new TypeError("tools." + name + ": arguments must be JSON data");
      } catch (error) {
        return apply(reject, Promise_, [error]);
      }
      return apply(then, hostCall(name, text), [parse]);
    });
  }
  const level = function (name) {
    return freeze(function () {
      const parts = [];
      for (let i = 0; i < arguments.length; i++) parts.push(format(arguments[i]));
      hostLog(name, apply(join, parts, [" "]));
    });
  };
  Object.defineProperty(globalThis, "tools", { value: freeze(tools), enumerable: false });
  Object.defineProperty(globalThis, "console", {
    value: freeze({ log: level("log"), info: level("info"), warn: level("warn"), error: level("error"), debug: level("debug") }),
    enumerable: false,
  });
  return freeze({
    watch: function (promise, onValue, onError) {
      apply(then, promise, [onValue, onError]);
    },
    finish: function (value) {
      const text = stringify(value === undefined ? null : value);
      return typeof text === "string" ? text : "null";
    },
    excerpt: excerpt,
  });
})${"`"};

const post = (message) => parentPort.postMessage(message);
let finished = false;
const finish = (message) => {
  if (finished) return;
  finished = true;
  post(message);
};
const limitError = (limit, message) => ({ kind: "limit", limit, message });
/** A program's text quoted in a limit's message: its start only. */
const quote = (text) => (text.length > 200 ? text.slice(0, 200) + "…" : text);

// The error text a program fails with, within max UTF-8 bytes: cut, with a marker, when longer.
const fitText = (head, length, max) => {
  if (length === head.length && Buffer.byteLength(head) <= max) return head;
  const marker = (cut) => " … [" + cut + " more characters cut: error text is limited to maxOutputBytes, " + max + " bytes]";
  const room = max - Buffer.byteLength(marker(length));
  if (room <= 0) return marker(length).slice(0, max);
  let text = head;
  // At most 3 UTF-8 bytes per UTF-16 unit: each step cuts no more than the excess.
  for (let excess = Buffer.byteLength(text) - room; excess > 0; excess = Buffer.byteLength(text) - room) {
    text = text.slice(0, text.length - Math.ceil(excess / 3));
  }
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  return text + marker(length - text.length);
};

(async () => {
  const { newVariant, newQuickJSWASMModuleFromVariant } = require(corePath);
  const base = require(variantPath).default;
  // A limit stops the program at once: "done" goes out as it trips, and the host terminates the
  // worker (a program may catch a failure in a loop of engine code that seldom polls interrupts).
  let fatal = null;
  const stop = (error) => {
    if (fatal !== null) return;
    fatal = error;
    finish({ type: "done", ok: false, error });
  };
  const memory = new WebAssembly.Memory({ initial: plan.initialPages, maximum: plan.maximumPages });
  const grow = WebAssembly.Memory.prototype.grow;
  // The heap is bounded where it lives (see memory-plan.ts): the memory starts at static data, C
  // stack and memoryBytes of heap, and may not grow while the program runs; an allocation that
  // needs it to is the program exceeding memoryBytes. Reading the outcome out, the host may grow it.
  let reporting = false;
  let placing = "";
  memory.grow = function (pages) {
    if (!reporting) {
      stop(limitError("memory", "the program needed more than its " + limits.memoryBytes + " bytes of heap" + placing));
      throw new RangeError("the program's heap is full");
    }
    return Reflect.apply(grow, memory, [pages]);
  };
  const variant = newVariant(base, { wasmModule, wasmMemory: memory });
  const engine = await newQuickJSWASMModuleFromVariant(variant);
  const heap = engine.module;
  const runtime = engine.newRuntime();
  // No runtime.setMemoryLimit: in this build QuickJS's counter is not the heap (memory-plan.ts), and
  // its refusals could be caught by the program; the heap's own bound is exact and stops it.
  runtime.setMaxStackSize(limits.stackBytes);
  const vm = runtime.newContext();

  post({ type: "ready" });
  const deadline = Date.now() + limits.timeMs;
  /** Whether a limit stopped the program. */
  const stopped = () => fatal !== null;
  /** Whether text of this many UTF-8 bytes can still be placed in the program's heap. */
  const fits = (bytes, what) => {
    placing = " (for " + what + ")";
    const probe = heap._malloc(bytes + 1);
    placing = "";
    if (probe === 0) return false;
    heap._free(probe);
    return true;
  };
  // Once the deadline has interrupted the program, a chain that a catch kept alive and that then
  // ran dry is still a time-limit stop, not a program that awaits forever.
  let interruptedAtDeadline = false;
  runtime.setInterruptHandler(() => {
    if (stopped()) return true;
    if (Date.now() > deadline) interruptedAtDeadline = true;
    return interruptedAtDeadline;
  });

  let consoleBytes = 0;
  let callCount = 0;
  let nextId = 0;
  const pending = new Map();
  let wake = null;
  const lengthOf = (handle) => {
    const length = vm.getProp(handle, "length");
    const value = vm.getNumber(length);
    length.dispose();
    return value;
  };

  const hostCall = vm.newFunction("call", (nameHandle, textHandle) => {
    if (stopped()) return { error: vm.newError("the program was stopped") };
    if (vm.typeof(nameHandle) !== "string" || vm.typeof(textHandle) !== "string") {
      return { error: vm.newError("tool calls take JSON text") };
    }
    const name = vm.getString(nameHandle);
    if (!toolNames.includes(name)) return { error: vm.newError("unknown tool " + name) };
    callCount += 1;
    if (callCount > limits.maxToolCalls) {
      stop(limitError("toolCalls", "the program made more than " + limits.maxToolCalls + " tool calls"));
      return { error: vm.newError("tool call limit reached") };
    }
    // A UTF-8 byte per character at least: a longer text is too large before it is copied out.
    const length = lengthOf(textHandle);
    const text = length > limits.maxOutputBytes ? null : vm.getString(textHandle);
    if (text === null || Buffer.byteLength(text) > limits.maxOutputBytes) {
      stop(limitError("output", "arguments of a call to " + name + " are larger than " + limits.maxOutputBytes + " bytes"));
      return { error: vm.newError("argument size limit reached") };
    }
    const id = ++nextId;
    const deferred = vm.newPromise();
    pending.set(id, deferred);
    post({ type: "call", id, name, args: text });
    return deferred.handle;
  });

  const hostLog = vm.newFunction("log", (levelHandle, textHandle) => {
    if (stopped() || vm.typeof(textHandle) !== "string") return;
    const level = vm.typeof(levelHandle) === "string" ? vm.getString(levelHandle) : "log";
    const prefix = level === "log" ? "" : "[" + level + "] ";
    const over = () =>
      stop(limitError("console", "the program wrote more than " + limits.maxConsoleBytes + " bytes of console output"));
    // Checked before the text is copied out: at least a byte per character, and a newline.
    if (consoleBytes + prefix.length + lengthOf(textHandle) + 1 > limits.maxConsoleBytes) return over();
    const text = prefix + vm.getString(textHandle);
    consoleBytes += Buffer.byteLength(text) + 1;
    if (consoleBytes > limits.maxConsoleBytes) return over();
    post({ type: "console", text });
  });

  parentPort.on("message", (message) => {
    if (message.type !== "result" || fatal !== null) return;
    const deferred = pending.get(message.id);
    if (deferred === undefined) return;
    pending.delete(message.id);
    // A reply that cannot be placed in the program's heap is the program's memory running out.
    const bytes = Buffer.byteLength(message.value);
    if (!fits(2 * bytes + 256, "a tool call's reply of " + bytes + " bytes")) {
      return stop(limitError("memory", "a tool call's reply does not fit in the program's " + limits.memoryBytes + " bytes of heap"));
    }
    if (message.ok) deferred.resolve(vm.newString(message.value));
    else deferred.reject(vm.newError({ name: "ToolError", message: message.value }));
    if (wake !== null) {
      const resume = wake;
      wake = null;
      resume();
    }
  });

  const take = (result) => {
    if (result.error) throw new GuestThrow(result.error);
    return result.value;
  };
  class GuestThrow {
    constructor(handle) {
      this.handle = handle;
    }
  }

  const helpers = take(vm.evalCode(BOOTSTRAP, "nous-bootstrap.js"));
  const names = vm.newArray();
  toolNames.forEach((name, index) => vm.setProp(names, index, vm.newString(name)));
  const api = take(vm.callFunction(helpers, vm.undefined, hostCall, hostLog, names));
  const finishFn = vm.getProp(api, "finish");
  const excerptFn = vm.getProp(api, "excerpt");
  const watchFn = vm.getProp(api, "watch");

  // A thrown value as text within maxOutputBytes: at most that many characters leave the guest.
  const describe = (handle) => {
    const result = vm.callFunction(excerptFn, vm.undefined, handle, vm.newNumber(limits.maxOutputBytes));
    if (result.error) return "[unprintable value]";
    const head = vm.getProp(result.value, 0);
    const length = vm.getProp(result.value, 1);
    if (vm.typeof(head) !== "string") return "[unprintable value]";
    return fitText(vm.getString(head), vm.getNumber(length), limits.maxOutputBytes);
  };
  const classify = (text) => {
    if (stopped()) return fatal;
    if (Date.now() > deadline || /interrupted/.test(text)) {
      return limitError("time", "the program ran longer than " + limits.timeMs + " ms");
    }
    if (/out of memory|string too long/i.test(text)) return limitError("memory", "the program ran out of memory (" + quote(text) + ")");
    if (/stack overflow|call stack size/i.test(text)) return limitError("stack", "the program overflowed its stack (" + quote(text) + ")");
    return { kind: "program", message: text };
  };
  /** The program's outcome, read out by the host: from here the headroom above its heap is usable. */
  const report = (failure) => {
    if (stopped()) return;
    reporting = true;
    return finish({ type: "done", ok: false, error: classify(describe(failure)) });
  };

  let settled = null;
  let jobFailure = null;
  try {
    const program = take(vm.evalCode("(async function () {\n" + code + "\n})", "program.js"));
    const promise = take(vm.callFunction(program, vm.undefined));
    const onValue = vm.newFunction("onValue", (value) => {
      if (settled === null) settled = { value: value.dup() };
    });
    const onError = vm.newFunction("onError", (error) => {
      if (settled === null) settled = { error: error.dup() };
    });
    take(vm.callFunction(watchFn, vm.undefined, promise, onValue, onError));
    for (;;) {
      for (let batch = 0; runtime.hasPendingJob(); batch++) {
        if (fatal !== null || Date.now() > deadline) break;
        const jobs = runtime.executePendingJobs(32);
        if (jobs.error) jobFailure = describe(jobs.error);
        if (batch % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (stopped()) return;
      if (Date.now() > deadline) return finish({ type: "done", ok: false, error: classify("interrupted") });
      if (settled !== null) break;
      if (runtime.hasPendingJob()) continue;
      if (pending.size === 0) {
        // A job that hit a limit (an interrupt, out of memory) is rejected alone and ends its chain.
        if (interruptedAtDeadline) return finish({ type: "done", ok: false, error: classify("interrupted") });
        const failure = jobFailure === null ? null : classify(jobFailure);
        if (failure !== null && failure.kind === "limit") return finish({ type: "done", ok: false, error: failure });
        return finish({
          type: "done",
          ok: false,
          error: { kind: "program", message: "The program awaits a promise that never settles" },
        });
      }
      await new Promise((resolve) => {
        wake = resolve;
      });
    }
    if (settled.error) return report(settled.error);
    const text = take(vm.callFunction(finishFn, vm.undefined, settled.value));
    if (stopped()) return;
    reporting = true;
    const value = lengthOf(text) > limits.maxOutputBytes ? null : vm.getString(text);
    if (value === null || Buffer.byteLength(value) > limits.maxOutputBytes) {
      return finish({ type: "done", ok: false, error: limitError("output", "the result is larger than " + limits.maxOutputBytes + " bytes") });
    }
    return finish({ type: "done", ok: true, value });
  } catch (error) {
    if (error instanceof GuestThrow) return report(error.handle);
    throw error;
  }
})().catch((error) => {
  const text = String(error && error.message ? error.message : error);
  if (error instanceof RangeError) {
    return finish({ type: "done", ok: false, error: limitError("stack", "the program nested or recursed deeper than the engine's native stack allows (" + text + ")") });
  }
  if (/memory|OOM|Aborted/i.test(text)) return finish({ type: "done", ok: false, error: limitError("memory", "the sandbox ran out of memory (" + text + ")") });
  finish({ type: "done", ok: false, error: { kind: "internal", message: text } });
});
`;
