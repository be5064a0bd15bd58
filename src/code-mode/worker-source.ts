/**
 * The source of the worker thread that runs one program in QuickJS (WebAssembly). It is plain
 * JavaScript run with `new Worker(source, { eval: true })`, so it works the same from the compiled
 * package and from TypeScript sources under a test runner.
 *
 * Protocol (worker → host): `ready`, `call { id, name, args }` (args: JSON text made in the guest),
 * `console { text }`, then `done { ok, value }` or `done { ok: false, error: { kind, limit?, message } }`.
 * Host → worker: `result { id, ok, value }` (value: JSON text, or the error text).
 * The host terminates the worker after `done`, and on its own deadline: nothing here is disposed.
 */
export const workerSource = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { corePath, variantPath, module: wasmModule, code, toolNames, limits } = workerData;

const BOOTSTRAP = ${"`"}(function (hostCall, hostLog, names) {
  "use strict";
  const stringify = JSON.stringify, parse = JSON.parse, freeze = Object.freeze, toText = String;
  const apply = Reflect.apply, then = Promise.prototype.then, join = Array.prototype.join;
  const Promise_ = Promise, reject = Promise.reject;
  const describe = function (value) {
    try {
      if (value instanceof Error) return toText(value.name) + ": " + toText(value.message);
    } catch (_) {}
    try { return toText(value); } catch (_) { return "[unprintable value]"; }
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
    describe: describe,
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

(async () => {
  const { newVariant, newQuickJSWASMModuleFromVariant } = require(corePath);
  const base = require(variantPath).default;
  const memory = new WebAssembly.Memory({
    initial: 256,
    maximum: 256 + Math.ceil(limits.memoryBytes / 65536),
  });
  const variant = newVariant(base, { wasmModule, wasmMemory: memory });
  const engine = await newQuickJSWASMModuleFromVariant(variant);
  const runtime = engine.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const vm = runtime.newContext();

  post({ type: "ready" });
  const deadline = Date.now() + limits.timeMs;
  let fatal = null;
  const stop = (error) => {
    if (fatal !== null) return;
    fatal = error;
    finish({ type: "done", ok: false, error });
  };
  // Once the deadline has interrupted the program, a chain that a catch kept alive and that then
  // ran dry is still a time-limit stop, not a program that awaits forever.
  let interruptedAtDeadline = false;
  runtime.setInterruptHandler(() => {
    if (fatal !== null) return true;
    if (Date.now() > deadline) interruptedAtDeadline = true;
    return interruptedAtDeadline;
  });

  let consoleBytes = 0;
  let callCount = 0;
  let nextId = 0;
  const pending = new Map();
  let wake = null;

  const hostCall = vm.newFunction("call", (nameHandle, textHandle) => {
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
    const length = vm.getNumber(vm.getProp(textHandle, "length"));
    if (length * 3 > limits.maxOutputBytes) {
      const text = vm.getString(textHandle);
      if (Buffer.byteLength(text) > limits.maxOutputBytes) {
        stop(limitError("output", "arguments of a call to " + name + " are larger than " + limits.maxOutputBytes + " bytes"));
        return { error: vm.newError("argument size limit reached") };
      }
    }
    const id = ++nextId;
    const deferred = vm.newPromise();
    pending.set(id, deferred);
    post({ type: "call", id, name, args: vm.getString(textHandle) });
    return deferred.handle;
  });

  const hostLog = vm.newFunction("log", (levelHandle, textHandle) => {
    if (vm.typeof(textHandle) !== "string") return;
    const level = vm.typeof(levelHandle) === "string" ? vm.getString(levelHandle) : "log";
    const text = vm.getString(textHandle);
    const bytes = Buffer.byteLength(text) + 1;
    consoleBytes += bytes;
    if (consoleBytes > limits.maxConsoleBytes) {
      stop(limitError("console", "the program wrote more than " + limits.maxConsoleBytes + " bytes of console output"));
      return;
    }
    post({ type: "console", text: (level === "log" ? "" : "[" + level + "] ") + text });
  });

  parentPort.on("message", (message) => {
    if (message.type !== "result") return;
    const deferred = pending.get(message.id);
    if (deferred === undefined) return;
    pending.delete(message.id);
    if (message.ok) {
      const value = vm.newString(message.value);
      deferred.resolve(value);
    } else {
      const error = vm.newError({ name: "ToolError", message: message.value });
      deferred.reject(error);
    }
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
  const describeFn = vm.getProp(api, "describe");
  const watchFn = vm.getProp(api, "watch");

  const describe = (handle) => {
    const result = vm.callFunction(describeFn, vm.undefined, handle);
    if (result.error || vm.typeof(result.value) !== "string") return "[unprintable value]";
    return vm.getString(result.value);
  };
  const classify = (text) => {
    if (fatal !== null) return fatal;
    if (Date.now() > deadline || /interrupted/.test(text)) {
      return limitError("time", "the program ran longer than " + limits.timeMs + " ms");
    }
    if (/out of memory|string too long/i.test(text)) return limitError("memory", "the program ran out of memory (" + text + ")");
    if (/stack overflow|call stack size/i.test(text)) return limitError("stack", "the program overflowed its stack (" + text + ")");
    // Out of memory while making the error itself, QuickJS throws null: judge by the heap's size.
    if (memory.buffer.byteLength - 256 * 65536 >= 0.75 * limits.memoryBytes) {
      return limitError("memory", "the program ran out of memory (" + text + ")");
    }
    return { kind: "program", message: text };
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
      if (fatal !== null) return finish({ type: "done", ok: false, error: fatal });
      if (Date.now() > deadline) return finish({ type: "done", ok: false, error: classify("interrupted") });
      if (settled !== null) break;
      if (runtime.hasPendingJob()) continue;
      if (pending.size === 0) {
        // A job that hit a limit (an interrupt, out of memory) is rejected alone and ends its chain.
        if (interruptedAtDeadline) return finish({ type: "done", ok: false, error: classify("interrupted") });
        // A chain that a catch kept alive until memory ran out, then died quietly: a memory stop.
        if (memory.buffer.byteLength - 256 * 65536 >= 0.75 * limits.memoryBytes) {
          return finish({ type: "done", ok: false, error: limitError("memory", "the program ran out of memory") });
        }
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
    if (settled.error) return finish({ type: "done", ok: false, error: classify(describe(settled.error)) });
    const text = take(vm.callFunction(finishFn, vm.undefined, settled.value));
    if (fatal !== null) return finish({ type: "done", ok: false, error: fatal });
    const length = vm.getNumber(vm.getProp(text, "length"));
    if (length > limits.maxOutputBytes) {
      return finish({ type: "done", ok: false, error: limitError("output", "the result is larger than " + limits.maxOutputBytes + " bytes") });
    }
    const value = vm.getString(text);
    if (Buffer.byteLength(value) > limits.maxOutputBytes) {
      return finish({ type: "done", ok: false, error: limitError("output", "the result is larger than " + limits.maxOutputBytes + " bytes") });
    }
    return finish({ type: "done", ok: true, value });
  } catch (error) {
    if (error instanceof GuestThrow) return finish({ type: "done", ok: false, error: classify(describe(error.handle)) });
    throw error;
  }
})().catch((error) => {
  const text = String(error && error.message ? error.message : error);
  if (error instanceof RangeError) return finish({ type: "done", ok: false, error: limitError("stack", "the sandbox overflowed a host stack (" + text + ")") });
  if (/memory|OOM|Aborted/i.test(text)) return finish({ type: "done", ok: false, error: limitError("memory", "the sandbox ran out of memory (" + text + ")") });
  finish({ type: "done", ok: false, error: { kind: "internal", message: text } });
});
`;
