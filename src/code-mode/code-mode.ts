import { z } from "zod";
import { ContextUpdate } from "../context/context-update.js";
import type { ContextOperation } from "../context/operations.js";
import { ContextUpdateError, DefinitionError } from "../errors/index.js";
import type { RunContext } from "../session/run-context.js";
import { checkToolName, type Tool, tool } from "../tools/tool.js";
import { type DeclaredTool, toolDeclarations } from "./declarations.js";
import { type CodeLimits, resolveLimits } from "./limits.js";
import { consoleOf, runInSandbox, type ToolCallReply } from "./sandbox.js";

export interface CodeModeOptions {
  /** The tool's name (default `"run_code"`). */
  readonly name?: string;
  /**
   * The tools the program may call: tool objects (their JSON Schemas become TypeScript declarations
   * in the description) or names. Default: every tool of the run except this one, undeclared.
   */
  readonly tools?: readonly (DeclaredTool | string)[];
  readonly limits?: CodeLimits;
  /** Text placed before the generated instructions and declarations. */
  readonly description?: string;
}

/** What the model gets back from a program that finished. */
export interface CodeModeResult {
  readonly result: unknown;
  /** Console output, when the program wrote any. */
  readonly console?: string;
  /**
   * Set when the program failed after some of its tool calls ran: the failure is reported here (not
   * as an error result) so that those calls' records and updates are kept.
   */
  readonly error?: string;
}

const input = z.object({
  code: z.string().min(1).describe("The body of an async JavaScript function; `return` its result."),
});

/**
 * A tool that runs a JavaScript program written by the model in a WebAssembly sandbox (QuickJS in
 * a worker thread), where the allowed tools are async functions on `tools`. Each call the program
 * makes goes through the run like a direct one (validation, hooks, approvals, budget); the calls
 * are recorded as `tool_call` bookkeeping events with their parent, and their updates fold into
 * deps in program order. The model sees only the program's result and its console output.
 *
 * @example
 * const agent = new Agent({ model, tools: [add, codeMode({ tools: [add] })] });
 * // the model calls run_code with { code: "let s = 0; for (const n of [1, 2, 3]) s = await tools.add({ a: s, b: n }); return s;" }
 */
export function codeMode<D extends object = Record<string, unknown>>(
  options: CodeModeOptions = {},
): Tool<{ code: string }, CodeModeResult, D> {
  const name = options.name ?? "run_code";
  checkToolName(name);
  const limits = resolveLimits(options.limits);
  const declared = (options.tools ?? []).filter((item): item is DeclaredTool => typeof item !== "string");
  const listed = options.tools?.map((item) => (typeof item === "string" ? item : item.name));
  for (const listedName of listed ?? []) {
    checkToolName(listedName);
    if (listedName === name) throw new DefinitionError({ message: `codeMode: "${name}" cannot call itself` });
  }
  const description = [
    options.description ??
      "Run a JavaScript program in a sandbox and get back the value it returns. Use it to call several tools in one step: loops, Promise.all, filtering and aggregating results before they reach you.",
    "The program is the body of an async function: use `await` and `return` a JSON value. Tools are async methods of the global `tools` (below); a failed call throws an Error whose message says why. `console.log` output is returned with the result. There is no network, file system, timer or module system.",
    `Limits: ${limits.timeMs} ms, ${Math.round(limits.memoryBytes / 1048576)} MiB of memory, ${limits.maxToolCalls} tool calls, a result of at most ${limits.maxOutputBytes} bytes.`,
    "```ts",
    toolDeclarations(declared, listed === undefined || declared.length < listed.length),
    "```",
  ].join("\n\n");

  return tool({
    name,
    description,
    input,
    execute: async ({ code }, context: RunContext<D>) => {
      const seam = context.seam;
      if (seam === undefined) {
        throw new DefinitionError({ message: `Tool "${name}" runs programs inside an agent run only` });
      }
      const allowed = listed ?? seam.toolNames.filter((item) => item !== name);
      const parentToolCallId = context.toolCallId ?? name;
      let deps: object = context.deps;
      const operations: ContextOperation[] = [];
      let count = 0;

      const onToolCall = async (toolName: string, args: unknown, signal: AbortSignal): Promise<ToolCallReply> => {
        count += 1;
        const toolCallId = `${parentToolCallId}.${count}`;
        const outcome = await seam.callTool({
          toolName,
          args,
          parentToolCallId,
          toolCallId,
          deps,
          signal: AbortSignal.any([signal, context.signal]),
        });
        let { result, isError } = outcome;
        let nested: readonly ContextOperation[] = [];
        if (!isError && outcome.update !== undefined) {
          try {
            deps = outcome.update.toDeps(deps);
            nested = outcome.update.operations();
          } catch (error) {
            if (!(error instanceof ContextUpdateError)) throw error;
            result = `Tool "${toolName}" returned an invalid context update (nothing was applied): ${error.message}`;
            isError = true;
          }
        }
        const record = { toolCallId, toolName, parentToolCallId, args, durationMs: outcome.durationMs };
        operations.push({
          op: "log_event",
          // a `tool_call` event counts as a call in the log's usage: a call refused before it ran is not one
          type: outcome.ran ? "tool_call" : "tool_call_refused",
          data: isError ? { ...record, isError, error: result } : { ...record, isError, result },
        });
        operations.push(...nested);
        return isError ? { ok: false, error: errorText(result) } : { ok: true, value: result };
      };

      try {
        const run = await runInSandbox({ code, toolNames: allowed, limits, onToolCall, signal: context.signal });
        const result: CodeModeResult =
          run.console === "" ? { result: run.value } : { result: run.value, console: run.console };
        return { result, update: ContextUpdate.fromOperations<D>(operations) };
      } catch (error) {
        const output = consoleOf(error);
        if (error instanceof Error && output !== "") error.message += `\nConsole output before the failure:\n${output}`;
        if (operations.length === 0 || context.signal.aborted) throw error;
        // The runner records an update only with a successful result: keep the nested calls' records
        // and updates by reporting the failure as the result.
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        return { result: { result: null, error: message }, update: ContextUpdate.fromOperations<D>(operations) };
      }
    },
  });
}

function errorText(result: unknown): string {
  if (typeof result === "string") return result;
  try {
    return JSON.stringify(result) ?? String(result);
  } catch {
    return String(result);
  }
}
