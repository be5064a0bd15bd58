import { DefinitionError } from "../errors/index.js";

/**
 * Bounds of one code-mode program run. Every limit breached is a `CodeLimitError` naming it (its
 * `limit`, and the option and value in its message). What a program returns to the model and the
 * log is at most `maxOutputBytes` (its result or its error text) plus `maxConsoleBytes` (its
 * console output), and a few hundred bytes of framing.
 *
 * @example
 * codeMode({ tools: [search], limits: { timeMs: 5000, memoryBytes: 128 * 1024 * 1024 } });
 */
export interface CodeLimits {
  /** Wall time of the whole program, tool calls included (default 10,000 ms). */
  readonly timeMs?: number;
  /**
   * Heap of the program (default 64 MiB, at least 16 MiB, at most 1.75 GiB): everything QuickJS
   * allocates, the runtime's own few hundred KiB included. An allocation past it stops the program
   * (`"memory"`). The WebAssembly memory starts at 5.09 MB of static data and C stack plus this
   * heap, never grows while the program runs, and is capped 1 MiB + 6 × `maxOutputBytes` above for
   * reading the outcome out: 69.1 MiB growing to at most 71.6 MiB for the defaults (untouched
   * pages cost no physical memory).
   */
  readonly memoryBytes?: number;
  /**
   * Stack of the sandbox's interpreter (default 256 KiB, at most 4 MiB): the program's recursion
   * and the engine's own (`JSON.stringify` of a deeply nested value) stop at this bound. Near the
   * maximum, the worker thread's native stack may end first: the `"stack"` limit all the same.
   */
  readonly stackBytes?: number;
  /** Tool calls one program may make (default 100). */
  readonly maxToolCalls?: number;
  /**
   * What the program sends back (default 256 KiB): its JSON result, or the text of the error it
   * fails with, and each tool call's JSON arguments. A larger result or argument is the
   * `"output"` limit; a longer error text is cut to this size, with a marker saying how much was
   * cut. With `maxConsoleBytes`, it bounds all a program returns to the model and the log.
   */
  readonly maxOutputBytes?: number;
  /**
   * Console output the program may write (default 64 KiB), counted in UTF-8 bytes, one newline per
   * call; writing more is the `"console"` limit. The output is checked before it leaves the sandbox.
   */
  readonly maxConsoleBytes?: number;
}

export type ResolvedLimits = Required<CodeLimits>;

export const defaultLimits: ResolvedLimits = Object.freeze({
  timeMs: 10_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxToolCalls: 100,
  maxOutputBytes: 256 * 1024,
  maxConsoleBytes: 64 * 1024,
});

/** The largest stack the interpreter may be given: the wasm build's own C stack is bounded. */
export const maxStackBytes = 4 * 1024 * 1024;
/** Below this, the WebAssembly build's minimum memory would give the heap more than asked. */
const minMemoryBytes = 16 * 1024 * 1024;
/** Above this, the heap and its headroom would not fit in the 2 GiB the build can grow to. */
const maxMemoryBytes = 1792 * 1024 * 1024;

/** Fills in defaults and checks every limit is a positive whole number in range. */
export function resolveLimits(limits: CodeLimits = {}): ResolvedLimits {
  const resolved = { ...defaultLimits };
  for (const key of Object.keys(defaultLimits) as (keyof ResolvedLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0) {
      throw new DefinitionError({ message: `codeMode: limits.${key} must be a positive whole number` });
    }
    resolved[key] = value;
  }
  if (resolved.stackBytes > maxStackBytes) {
    throw new DefinitionError({ message: `codeMode: limits.stackBytes must be at most ${maxStackBytes}` });
  }
  if (resolved.memoryBytes < minMemoryBytes || resolved.memoryBytes > maxMemoryBytes) {
    throw new DefinitionError({
      message: `codeMode: limits.memoryBytes must be between ${minMemoryBytes} and ${maxMemoryBytes}`,
    });
  }
  return Object.freeze(resolved);
}
