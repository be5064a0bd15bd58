import { UnexpectedModelCallError } from "../errors/unexpected-model-call-error.js";
import {
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
} from "./model.js";
import { type ScriptedResponse, streamResponse, toModelResponse } from "./scripted-response.js";

/** A step of a script: a response, or a function of the request that returns one (or throws). */
export type ScriptStep =
  | ScriptedResponse
  | ((request: ModelRequest, turn: number) => ScriptedResponse | Promise<ScriptedResponse>);

export { UnexpectedModelCallError };

/**
 * A deterministic model that answers from a script, one step per request, and records every
 * request it received. Streams its answers in small parts.
 *
 * @example
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: "add_todo", args: { text: "milk" } }] },
 *   { text: "Added." },
 * ]);
 * await agent.run("Remind me to buy milk");
 * model.requests.length; // 2
 * model.unusedSteps();   // 0
 */
export class ScriptedModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = "scripted";
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly requests: ModelRequest[] = [];
  readonly #steps: readonly ScriptStep[];

  constructor(steps: readonly ScriptStep[], options: { modelId?: string; capabilities?: ModelCapabilities } = {}) {
    this.#steps = steps;
    this.modelId = options.modelId ?? "script";
    this.capabilities = options.capabilities ?? { nativeOutput: true, tools: true };
  }

  /** How many steps were never used. */
  unusedSteps(): number {
    return Math.max(0, this.#steps.length - this.requests.length);
  }

  /** Throws when some steps were never used (a test expected more turns than happened). */
  assertAllUsed(): void {
    const unused = this.unusedSteps();
    if (unused > 0) {
      throw new UnexpectedModelCallError({
        message: `ScriptedModel: ${unused} of ${this.#steps.length} step(s) were never used`,
      });
    }
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.requests.length;
    this.requests.push(request);
    const step = this.#steps[turn];
    if (step === undefined) {
      throw new UnexpectedModelCallError({
        message: `ScriptedModel: request ${turn + 1} has no step (the script has ${this.#steps.length})`,
      });
    }
    const scripted = typeof step === "function" ? await step(request, turn) : step;
    return toModelResponse(scripted, turn, this.modelId);
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    yield* streamResponse(await this.doGenerate(request));
  }
}
