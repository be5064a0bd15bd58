import type { ModelRequest, ModelSettings, ToolDefinition } from "../models/model.js";
import { providerToolsOf } from "../tools/agent-tools.js";
import { toToolDefinition } from "../tools/tool.js";
import { nativeOutput, OUTPUT_TOOL_NAME, outputToolDefinition, promptedInstructions } from "./output-spec.js";
import { noticeRecorder } from "./request-record.js";
import type { RunState } from "./run-state.js";

/** One object for every request without settings (the request record normalizes each settings object once). */
const NO_SETTINGS: ModelSettings = Object.freeze({});

const definitionsByTools = new WeakMap<object, readonly ToolDefinition[]>();

/** The tool definitions sent to the model: fixed for an agent, so built once per tool map. */
function toolDefinitions<D extends object, O>(state: RunState<D, O>): readonly ToolDefinition[] {
  const { tools, output } = state.config;
  let definitions = definitionsByTools.get(tools);
  if (definitions === undefined) {
    const list: ToolDefinition[] = [];
    for (const item of tools.values()) list.push(toToolDefinition(item));
    if (output?.mode === "tool") list.push(outputToolDefinition(output));
    definitions = Object.freeze(list);
    definitionsByTools.set(tools, definitions);
  }
  return definitions;
}

/**
 * Builds the next model request from the run's state: instructions, messages, tools, output.
 * Synchronous unless the instructions are a function (one await less per step in the common case).
 */
export function assembleRequest<D extends object, O>(state: RunState<D, O>): ModelRequest | Promise<ModelRequest> {
  const instructions = state.config.options.instructions;
  if (typeof instructions === "function") {
    return Promise.resolve(instructions(state.runContext())).then((text) => buildRequest(state, text));
  }
  return buildRequest(state, instructions);
}

function buildRequest<D extends object, O>(state: RunState<D, O>, instructions: string | undefined): ModelRequest {
  const { options, output, signal } = state.config;
  const parts: string[] = [];
  if (instructions) parts.push(instructions);
  if (output?.mode === "prompted") parts.push(promptedInstructions(output));
  const definitions = toolDefinitions(state);
  const providerTools = providerToolsOf(options.tools);

  return {
    instructions: parts.length > 0 ? parts.join("\n\n") : undefined,
    messages: state.context.messages,
    tools: definitions,
    ...(providerTools.length > 0 ? { providerTools } : {}),
    toolChoice: output?.mode === "tool" ? "required" : definitions.length > 0 ? "auto" : undefined,
    output: output?.mode === "native" ? nativeOutput(output) : undefined,
    outputToolName: output?.mode === "tool" ? OUTPUT_TOOL_NAME : undefined,
    settings: options.settings ?? NO_SETTINGS,
    signal,
    onNotice: noticeRecorder(state),
  };
}
