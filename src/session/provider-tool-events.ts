import type { Source } from "../models/provider-tool.js";

/** `provider_tool_call`: a provider tool the model called and the provider ran. */
export interface ProviderToolCallData {
  /** The model that answered ("provider:model"). */
  readonly model: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/** `provider_tool_result`: what a provider tool returned. */
export interface ProviderToolResultData {
  readonly model: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly result: unknown;
  readonly isError: boolean;
  /** The pages or files the tool found. */
  readonly sources?: readonly Source[];
}

/** `provider_sources`: the sources an answer's text cites. */
export interface ProviderSourcesData {
  readonly model: string;
  readonly sources: readonly Source[];
}
