import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import { CancelledError } from "../errors/index.js";
import { CodeExecutionError, CodeLimitError, type CodeLimitName, codeLimitOption } from "./errors.js";
import { parseGuestJson } from "./guest-json.js";
import type { ResolvedLimits } from "./limits.js";
import { memoryPlan } from "./memory-plan.js";
import { quickjsPaths } from "./quickjs.js";
import { workerSource } from "./worker-source.js";

/** What a tool call made by the program settles with: JSON-able data, or an error text the program sees thrown. */
export type ToolCallReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };

export interface SandboxRun {
  readonly code: string;
  readonly toolNames: readonly string[];
  readonly limits: ResolvedLimits;
  /** Runs one tool call of the program. Calls arrive in the order the program made them. */
  readonly onToolCall: (name: string, args: unknown, signal: AbortSignal) => Promise<ToolCallReply>;
  readonly signal?: AbortSignal;
}

export interface SandboxResult {
  /** The program's return value, as JSON data. */
  readonly value: unknown;
  /** What the program wrote with `console.*`, one line per call. */
  readonly console: string;
}

type WorkerMessage =
  | { type: "ready" }
  | { type: "call"; id: number; name: string; args: string }
  | { type: "console"; text: string }
  | { type: "done"; ok: true; value: string }
  | { type: "done"; ok: false; error: { kind: string; limit?: CodeLimitName; message: string } };

const { corePath, variantPath } = quickjsPaths;
/** Slack past the program's own deadline before the host terminates the worker by force. */
const terminateSlackMs = 50;
const startupTimeoutMs = 15_000;

let compiled: Promise<WebAssembly.Module> | undefined;
let running = 0;

/** How many sandbox workers are alive in this process (for health checks and tests). */
export function activeSandboxes(): number {
  return running;
}

/** The QuickJS WebAssembly module, compiled once per process and shared with every worker. */
function quickjsModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const bytes = await readFile(join(dirname(variantPath), "emscripten-module.wasm"));
    return WebAssembly.compile(bytes);
  })();
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}

/**
 * Runs a program in a fresh QuickJS instance inside a fresh worker thread. The worker is always
 * terminated at the end, and by force on the wall-time deadline (a C loop that never polls the
 * interrupt handler cannot hold it). Rejects with `CodeLimitError`, `CodeExecutionError` or
 * `CancelledError`; the host is never affected by what the program does.
 */
export async function runInSandbox(run: SandboxRun): Promise<SandboxResult> {
  const { limits } = run;
  const module = await quickjsModule();
  run.signal?.throwIfAborted();
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      corePath,
      variantPath,
      module,
      code: run.code,
      toolNames: [...run.toolNames],
      limits: { ...limits },
      plan: memoryPlan(limits),
    },
    resourceLimits: {
      maxOldGenerationSizeMb: 64 + Math.ceil((limits.memoryBytes * 3) / 1048576),
      maxYoungGenerationSizeMb: 16,
      stackSizeMb: 4,
    },
    stdout: true,
    stderr: true,
  });
  running += 1;
  worker.once("exit", () => {
    running -= 1;
  });
  const consoleLines: string[] = [];
  let toolCalls = 0;
  let queue: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let settle!: (outcome: { value?: unknown; error?: Error }) => void;
  const ended = new Promise<{ value?: unknown; error?: Error }>((resolve) => {
    settle = resolve;
  });
  let done = false;
  const calls = new AbortController();
  const end = (outcome: { value?: unknown; error?: Error }) => {
    if (done) return;
    done = true;
    calls.abort();
    settle(outcome);
  };
  const fail = (limit: CodeLimitName, message: string) =>
    end({ error: new CodeLimitError({ limit, allowed: limits[codeLimitOption[limit]], message }) });

  const invalid = (parsed: { problem: string; tooDeep: boolean }, what: string) =>
    parsed.tooDeep
      ? fail("stack", `${what} ${parsed.problem}`)
      : end({ error: new CodeExecutionError({ message: `${what} ${parsed.problem}` }) });

  const onAbort = () => end({ error: new CancelledError(run.signal?.reason) });
  run.signal?.addEventListener("abort", onAbort, { once: true });
  timer = setTimeout(() => fail("time", "the sandbox did not start"), startupTimeoutMs);

  const reply = (id: number, ok: boolean, value: string) => {
    if (!done) worker.postMessage({ type: "result", id, ok, value });
  };
  const dispatch = (id: number, name: string, argsText: string) => {
    toolCalls += 1;
    if (toolCalls > limits.maxToolCalls) return fail("toolCalls", `more than ${limits.maxToolCalls} tool calls`);
    const parsed = parseGuestJson(argsText);
    if (!parsed.ok) return invalid(parsed, `the arguments of a call to ${name} are`);
    queue = queue.then(async () => {
      if (done) return;
      const answer = await run.onToolCall(name, parsed.value, calls.signal);
      if (answer.ok) {
        let text: string | undefined;
        try {
          text = JSON.stringify(answer.value ?? null);
        } catch {
          text = undefined;
        }
        if (text === undefined) reply(id, false, `tools.${name} returned a result that is not JSON data`);
        else reply(id, true, text);
      } else {
        reply(id, false, typeof answer.error === "string" ? answer.error : safeStringify(answer.error));
      }
    });
    queue.catch((error: unknown) => end({ error: error instanceof Error ? error : new Error(String(error)) }));
  };

  worker.on("message", (message: WorkerMessage) => {
    switch (message.type) {
      case "ready":
        clearTimeout(timer);
        timer = setTimeout(
          () => fail("time", `the program ran longer than ${limits.timeMs} ms`),
          limits.timeMs + terminateSlackMs,
        );
        return;
      case "call":
        return dispatch(message.id, message.name, message.args);
      case "console":
        consoleLines.push(message.text);
        return;
      case "done":
        if (message.ok) {
          const parsed = parseGuestJson(message.value);
          if (parsed.ok) return end({ value: parsed.value });
          return invalid(parsed, "the result is");
        }
        if (message.error.kind === "limit" && message.error.limit !== undefined) {
          return fail(message.error.limit, message.error.message);
        }
        return end({ error: new CodeExecutionError({ message: message.error.message }) });
    }
  });
  worker.on("error", (error: Error & { code?: string }) => {
    if (error.code === "ERR_WORKER_OUT_OF_MEMORY") return fail("memory", "the sandbox's worker ran out of memory");
    if (error instanceof RangeError) return fail("stack", `the sandbox overflowed a host stack (${error.message})`);
    end({ error: new CodeExecutionError({ message: `The sandbox failed: ${error.message}`, cause: error }) });
  });
  worker.on("exit", () => end({ error: new CodeExecutionError({ message: "The sandbox stopped unexpectedly" }) }));

  const outcome = await ended;
  clearTimeout(timer);
  run.signal?.removeEventListener("abort", onAbort);
  await worker.terminate();
  await queue.catch(() => undefined);
  if (outcome.error) {
    Object.defineProperty(outcome.error, "console", { value: consoleLines.join("\n"), enumerable: false });
    throw outcome.error;
  }
  return { value: outcome.value, console: consoleLines.join("\n") };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The console output captured before a program failed (attached to the error it failed with). */
export function consoleOf(error: unknown): string {
  const text = (error as { console?: unknown } | null)?.console;
  return typeof text === "string" ? text : "";
}
