import type { UIMessageChunk, UIMessagePart, UIToolPart } from "./ui-message-chunk.js";

type MutablePart = { -readonly [K in keyof UIMessagePart]: UIMessagePart[K] } & Record<string, unknown>;

/**
 * Applies UI chunks to a message's parts, as the client does (the subset Nous emits): a server-side
 * view of what a client shows.
 *
 * @example
 * const reducer = new UIMessageReducer();
 * for (const chunk of chunks) reducer.apply(chunk);
 * reducer.parts; // [{ type: "step-start" }, { type: "text", text: "Hi", state: "done" }]
 */
export class UIMessageReducer {
  readonly #parts: MutablePart[] = [];
  readonly #active = new Map<string, MutablePart>();

  get parts(): UIMessagePart[] {
    return this.#parts.map((part) => ({ ...part }) as UIMessagePart);
  }

  apply(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case "start-step":
        this.#parts.push({ type: "step-start" });
        return;
      case "text-start":
      case "reasoning-start": {
        const part: MutablePart = {
          type: chunk.type === "text-start" ? "text" : "reasoning",
          text: "",
          state: "streaming",
        };
        this.#active.set(chunk.id, part);
        this.#parts.push(part);
        return;
      }
      case "text-delta":
      case "reasoning-delta": {
        const part = this.#active.get(chunk.id);
        if (part !== undefined) part.text = `${part.text as string}${chunk.delta}`;
        return;
      }
      case "text-end":
      case "reasoning-end": {
        const part = this.#active.get(chunk.id);
        if (part !== undefined) part.state = "done";
        this.#active.delete(chunk.id);
        return;
      }
      case "tool-input-start":
        this.#parts.push({
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId,
          state: "input-streaming",
          input: undefined,
        });
        return;
      case "tool-input-available":
        this.#tool(chunk.toolCallId, { state: "input-available", input: chunk.input }, chunk.toolName);
        return;
      case "tool-approval-request":
        this.#tool(chunk.toolCallId, { state: "approval-requested", approval: { id: chunk.approvalId } });
        return;
      case "tool-output-available":
        this.#tool(chunk.toolCallId, { state: "output-available", output: chunk.output });
        return;
      case "tool-output-error":
        this.#tool(chunk.toolCallId, { state: "output-error", errorText: chunk.errorText });
        return;
      case "tool-output-denied":
        this.#tool(chunk.toolCallId, { state: "output-denied" });
        return;
      case "data-nous-context-update":
      case "data-nous-event":
      case "data-nous-cursor":
      case "data-partial-output": {
        if (chunk.transient === true) return;
        const existing = this.#parts.find(
          (part) => part.type === chunk.type && part.id === chunk.id && chunk.id !== undefined,
        );
        if (existing !== undefined) existing.data = chunk.data;
        else
          this.#parts.push({ type: chunk.type, ...(chunk.id === undefined ? {} : { id: chunk.id }), data: chunk.data });
        return;
      }
      case "tool-input-delta":
      case "start":
      case "finish-step":
      case "finish":
      case "error":
        return;
      default: {
        const unknown: never = chunk;
        throw new Error(`Unknown UI chunk ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** Marks a requested approval answered (its decision is in the log, the run not resumed yet). */
  respond(toolCallId: string, approved: boolean, reason: string | undefined): void {
    const part = this.#find(toolCallId);
    if (part === undefined || part.state !== "approval-requested") return;
    const approval = part.approval as { id: string };
    part.state = "approval-responded";
    part.approval = { id: approval.id, approved, ...(reason === undefined ? {} : { reason }) };
  }

  #find(toolCallId: string): MutablePart | undefined {
    return this.#parts.findLast((part) => part.toolCallId === toolCallId);
  }

  #tool(toolCallId: string, update: Partial<UIToolPart>, toolName?: string): void {
    let part = this.#find(toolCallId);
    if (part === undefined) {
      part = { type: `tool-${toolName ?? "unknown"}`, toolCallId, input: undefined };
      this.#parts.push(part);
    }
    Object.assign(part, update);
  }
}
