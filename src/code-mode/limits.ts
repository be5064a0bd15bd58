import { DefinitionError } from "../errors/index.js";

/** Bounds of one code-mode program run. Every limit breached is a `CodeLimitError` naming it. */
export interface CodeLimits {
  /** Wall time of the whole program, tool calls included (default 10,000 ms). */
  readonly timeMs?: number;
  /** Heap of the sandbox (default 64 MiB); the WebAssembly memory is capped at this plus a fixed 16 MiB base. */
  readonly memoryBytes?: number;
  /** Stack of the sandbox's interpreter (default 256 KiB). */
  readonly stackBytes?: number;
  /** Tool calls one program may make (default 100). */
  readonly maxToolCalls?: number;
  /** Size of the program's JSON result, and of each tool call's JSON arguments (default 256 KiB). */
  readonly maxOutputBytes?: number;
  /** Console output the program may write (default 64 KiB). */
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
const maxMemoryBytes = 2 * 1024 * 1024 * 1024 - 64 * 1024 * 1024;

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
  if (resolved.memoryBytes > maxMemoryBytes) {
    throw new DefinitionError({ message: `codeMode: limits.memoryBytes must be at most ${maxMemoryBytes}` });
  }
  return Object.freeze(resolved);
}
