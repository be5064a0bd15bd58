import {
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
} from "./model.js";
import { sampleFromSchema } from "./schema-sample.js";
import { type ScriptedResponse, streamResponse, toModelResponse } from "./scripted-response.js";

export interface TestModelOptions {
  /** The final text answer. Defaults to a summary of the tool results. */
  text?: string;
  /** Which tools to call on the first turn; defaults to every tool. */
  callTools?: readonly string[] | "all";
}

/**
 * The built-in model used when no provider is configured (`model: "test"`). It needs no network:
 * on the first turn it calls every tool once with arguments generated from the tool's schema, then
 * answers with text, or with a value valid for the output schema when structured output is asked for.
 *
 * @example
 * const agent = new Agent({ model: new TestModel(), tools: [addTodo] });
 */
export class TestModel implements Model {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = "test";
  readonly modelId: string;
  readonly capabilities: ModelCapabilities = { nativeOutput: true, tools: true };
  readonly requests: ModelRequest[] = [];
  readonly #options: TestModelOptions;

  constructor(options: TestModelOptions = {}, modelId = "test") {
    this.#options = options;
    this.modelId = modelId;
  }

  async doGenerate(request: ModelRequest): Promise<ModelResponse> {
    const turn = this.requests.length;
    this.requests.push(request);
    return toModelResponse(this.#respond(request), turn, this.modelId);
  }

  async *doStream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    yield* streamResponse(await this.doGenerate(request));
  }

  #respond(request: ModelRequest): ScriptedResponse {
    const called = new Set<string>();
    const results: string[] = [];
    for (const message of request.messages) {
      if (message.role === "assistant") {
        for (const part of message.content) if (part.type === "tool-call") called.add(part.toolName);
      } else if (message.role === "tool") {
        results.push(`${message.toolName}: ${JSON.stringify(message.result)}`);
      }
    }
    const wanted = this.#options.callTools ?? "all";
    const pending = request.tools.filter(
      (tool) =>
        tool.name !== request.outputToolName &&
        !called.has(tool.name) &&
        (wanted === "all" || wanted.includes(tool.name)),
    );
    if (pending.length > 0 && called.size === 0) {
      return { toolCalls: pending.map((tool) => ({ name: tool.name, args: sampleFromSchema(tool.inputSchema) })) };
    }
    const outputTool = request.tools.find((tool) => tool.name === request.outputToolName);
    if (outputTool !== undefined) {
      return { toolCalls: [{ name: outputTool.name, args: sampleFromSchema(outputTool.inputSchema) }] };
    }
    if (request.output !== undefined) return { text: JSON.stringify(sampleFromSchema(request.output.schema)) };
    return {
      text:
        this.#options.text ??
        (results.length > 0 ? `Done. Tool results: ${results.join("; ")}` : "Hello from the built-in test model."),
    };
  }
}

/** The factory behind `"test"` and `"test:<id>"`. */
export function createTestModel(modelId: string): TestModel {
  return new TestModel({}, modelId || "test");
}
