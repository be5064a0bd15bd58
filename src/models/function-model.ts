import {
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
} from "./model.js";
import { type ScriptedResponse, streamResponse, toModelResponse } from "./scripted-response.js";

/** Computes each answer from the request (and the turn number, from 0). */
export type ModelFunction = (request: ModelRequest, turn: number) => ScriptedResponse | Promise<ScriptedResponse>;

/**
 * A model whose answers a function computes from the request.
 *
 * @example
 * const echo = new FunctionModel((request) => ({ text: `you said ${request.messages.length} things` }));
 */
export class FunctionModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = "function";
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly requests: ModelRequest[] = [];
  readonly #respond: ModelFunction;

  constructor(respond: ModelFunction, options: { modelId?: string; capabilities?: ModelCapabilities } = {}) {
    this.#respond = respond;
    this.modelId = options.modelId ?? "function";
    this.capabilities = options.capabilities ?? { nativeOutput: true, tools: true };
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.requests.length;
    this.requests.push(request);
    return toModelResponse(await this.#respond(request, turn), turn, this.modelId);
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    yield* streamResponse(await this.doGenerate(request));
  }
}
