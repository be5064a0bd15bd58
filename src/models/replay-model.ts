import type { SessionEvent } from "../session/events.js";
import type { AssistantPart } from "../session/messages.js";
import { toResponsePart } from "./assistant-parts.js";
import {
  type FinishReason,
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ModelUsage,
} from "./model.js";
import { UnexpectedModelCallError } from "./scripted-model.js";
import { streamResponse } from "./scripted-response.js";

/**
 * A model that answers from a recorded session: the n-th request gets the n-th recorded model
 * response (its `model_response` event with the `assistant_message` that follows). A recorded real
 * run thus becomes an offline regression test.
 *
 * @example
 * const recorded = await store.read("incident-42");
 * const replay = new ReplayModel(recorded);
 * const result = await new Agent({ model: replay, tools }).run(firstPrompt);
 */
export class ReplayModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider: string;
  readonly modelId: string;
  readonly requests: ModelRequest[] = [];
  readonly #responses: readonly ModelResponse[];

  constructor(events: readonly SessionEvent[]) {
    const responses: ModelResponse[] = [];
    let pending: { usage: ModelUsage; finishReason: FinishReason } | undefined;
    let recordedModel = "replay:replay";
    for (const event of events) {
      if (event.type === "model_response") {
        const data = event.data as { usage: ModelUsage; finishReason: FinishReason; model: string };
        pending = { usage: data.usage, finishReason: data.finishReason };
        recordedModel = data.model;
      } else if (event.type === "assistant_message" && pending !== undefined) {
        const content = (event.data as { content: readonly AssistantPart[] }).content.map(toResponsePart);
        responses.push({ content, usage: pending.usage, finishReason: pending.finishReason });
        pending = undefined;
      }
    }
    const colon = recordedModel.indexOf(":");
    this.provider = colon === -1 ? recordedModel : recordedModel.slice(0, colon);
    this.modelId = colon === -1 ? recordedModel : recordedModel.slice(colon + 1);
    this.#responses = responses;
  }

  /** How many recorded responses were not asked for. */
  unusedResponses(): number {
    return this.#responses.length - this.requests.length;
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.requests.length;
    this.requests.push(request);
    const response = this.#responses[turn];
    if (response === undefined) {
      throw new UnexpectedModelCallError({
        message: `ReplayModel: request ${turn + 1} has no recorded response (the session has ${this.#responses.length})`,
      });
    }
    return response;
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    yield* streamResponse(await this.doGenerate(request));
  }
}
