/**
 * A piece of user content. `data` is base64 (or a `data:`/`http(s):` URL) and `mediaType` its IANA
 * type. Audio may come as an `audio` part or as a `file` part with an `audio/*` media type: each
 * provider routes binary parts by media type (see README "Images, files and audio").
 */
export type UserContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mediaType: string }
  | { readonly type: "file"; readonly data: string; readonly mediaType: string; readonly filename?: string }
  | { readonly type: "audio"; readonly data: string; readonly mediaType: string };

/**
 * A piece of content a tool returns to the model beside its result (see `toolContent`): the same
 * shapes as user content.
 */
export type ToolResultPart = UserContentPart;

/**
 * Vendor-specific data that must travel with a part, keyed by provider name (for example an
 * Anthropic thinking signature or a Gemini thought signature). Opaque to everything but that provider.
 */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * A piece of what the model said: text, reasoning, or a call of a tool. A tool call's `args` are the
 * parsed JSON arguments, or the raw text when the model sent text that is not valid JSON.
 */
export type AssistantPart =
  | { readonly type: "text"; readonly text: string; readonly providerMetadata?: ProviderMetadata }
  | { readonly type: "reasoning"; readonly text: string; readonly providerMetadata?: ProviderMetadata }
  | {
      readonly type: "tool-call";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly args: unknown;
      readonly providerMetadata?: ProviderMetadata;
    };

export interface SystemMessage {
  readonly role: "system";
  readonly content: string;
}

export interface UserMessage {
  readonly role: "user";
  readonly content: string | readonly UserContentPart[];
}

export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: readonly AssistantPart[];
}

export interface ToolMessage {
  readonly role: "tool";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly result: unknown;
  readonly isError: boolean;
  /** Images, files or text the tool returned beside `result` (see `toolContent`). */
  readonly content?: readonly ToolResultPart[];
}

/** What the model sees: the projection of the session log's surface events. Tagged by `role`. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** What `addMessage` accepts: a message, where assistant content may be a plain string and `isError` may be left out. */
export type MessageInput =
  | SystemMessage
  | UserMessage
  | { readonly role: "assistant"; readonly content: string | readonly AssistantPart[] }
  | (Omit<ToolMessage, "isError"> & { readonly isError?: boolean });
