import type { CallToolResult, Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { ContextUpdate } from "../context/context-update.js";
import { isPlainObject } from "../context/plain-object.js";
import { DefinitionError } from "../errors/user-errors.js";
import { childSignal, raceAbort } from "../runner/abort.js";
import type { ToolResultPart } from "../session/messages.js";
import { RunContext } from "../session/run-context.js";
import type { AnyTool } from "../tools/tool.js";
import { isToolContent } from "../tools/tool-content.js";

/** Decides a call to a served tool that needs approval. Without one, such calls fail. */
export type ServeApproval = (call: { readonly toolName: string; readonly args: unknown }) => boolean | Promise<boolean>;

/** The served tools of one server: shared by every session it opens. Deps updates fold into `deps`. */
export class ServedTools<D extends object> {
  readonly #tools: ReadonlyMap<string, AnyTool<D>>;
  readonly #approve: ServeApproval | undefined;
  #deps: D;

  constructor(tools: readonly AnyTool<D>[], deps: D, approve: ServeApproval | undefined) {
    const byName = new Map<string, AnyTool<D>>();
    for (const item of tools) {
      if (byName.has(item.name)) throw new DefinitionError({ message: `Duplicate tool name "${item.name}"` });
      if (item.inputSchema.type !== "object") {
        throw new DefinitionError({
          message: `Tool "${item.name}" cannot be served over MCP: its input schema must be a JSON Schema of type "object"`,
        });
      }
      byName.set(item.name, item);
    }
    this.#tools = byName;
    this.#deps = deps;
    this.#approve = approve;
  }

  /** The state deps as the served tools' updates left them. */
  get deps(): D {
    return this.#deps;
  }

  /** The `tools/list` entries: each tool's JSON Schema as exported for providers. */
  list(): SdkTool[] {
    return [...this.#tools.values()].map((item) => ({
      name: item.name,
      description: item.description,
      inputSchema: item.inputSchema as SdkTool["inputSchema"],
    }));
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * Runs one call as the agent runner would (validation, approval, timeout, cancellation) and
   * answers in MCP terms: failures are `isError` results the client's model can read.
   */
  async call(name: string, rawArgs: unknown, signal: AbortSignal, requestId: string): Promise<CallToolResult> {
    const item = this.#tools.get(name);
    if (item === undefined) return errorResult(`Unknown tool "${name}"`);
    const checked = await item.schema.validate(rawArgs ?? {});
    if (!checked.ok) return errorResult(`Invalid arguments for tool "${name}": ${checked.issues}`);
    const scope = childSignal(signal, item.timeoutMs);
    const context = RunContext.create({
      deps: this.#deps,
      signal: scope.signal,
      toolCallId: requestId,
      toolName: name,
    });
    try {
      const needsApproval =
        typeof item.needsApproval === "function"
          ? await item.needsApproval(checked.value, context)
          : item.needsApproval;
      if (needsApproval) {
        const approved = this.#approve ? await this.#approve({ toolName: name, args: checked.value }) : false;
        if (!approved) {
          return errorResult(
            this.#approve
              ? `The call to tool "${name}" was not approved`
              : `Tool "${name}" needs approval and this MCP server has no approval handler`,
          );
        }
      }
      const value = await raceAbort(
        Promise.resolve().then(() => item.execute(checked.value, context)),
        scope.signal,
      );
      if (isToolContent<D>(value)) {
        if (value.update !== undefined) this.#deps = value.update.applyToRunContext(context).deps;
        return withContentBlocks(toCallToolResult(value.result), value.content);
      }
      if (typeof value === "object" && value !== null && "update" in value && value.update instanceof ContextUpdate) {
        this.#deps = value.update.applyToRunContext(context).deps;
        return toCallToolResult((value as { result?: unknown }).result);
      }
      return toCallToolResult(value);
    } catch (error) {
      if (signal.aborted) throw error;
      if (scope.timedOut()) return errorResult(`Tool "${name}" timed out after ${item.timeoutMs} ms`);
      return errorResult(`Tool "${name}" failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      scope.dispose();
    }
  }
}

/** A value as an MCP result: text as is, plain objects also as `structuredContent`, other values as JSON text. */
export function toCallToolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  const text = JSON.stringify(value) ?? String(value);
  return isPlainObject(value)
    ? { content: [{ type: "text", text }], structuredContent: value as Record<string, unknown> }
    : { content: [{ type: "text", text }] };
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A result with a tool's content parts (`toolContent`) added as MCP blocks: text, image, audio, and files as blob resources. */
function withContentBlocks(result: CallToolResult, parts: readonly ToolResultPart[]): CallToolResult {
  const blocks = parts.map((part): CallToolResult["content"][number] => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "image":
      case "audio":
        return { type: part.type, data: part.data, mimeType: part.mediaType };
      case "file":
        return {
          type: "resource",
          resource: { uri: `file:///${part.filename ?? "file"}`, mimeType: part.mediaType, blob: part.data },
        };
      default: {
        const unexpected: never = part;
        throw new TypeError(`unknown content part ${JSON.stringify(unexpected)}`);
      }
    }
  });
  return { ...result, content: [...result.content, ...blocks] };
}
