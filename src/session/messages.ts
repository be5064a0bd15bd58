/** A piece of user content. */
export type UserContentPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mediaType: string }
  | { readonly type: "file"; readonly data: string; readonly mediaType: string; readonly filename?: string };

/** A piece of what the model said: text, reasoning, or a call of a tool. */
export type AssistantPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string; readonly signature?: string }
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly args: unknown };

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
}

/** What the model sees: the projection of the session log's surface events. Tagged by `role`. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** What `addMessage` accepts: a message, where assistant content may be a plain string and `isError` may be left out. */
export type MessageInput =
  | SystemMessage
  | UserMessage
  | { readonly role: "assistant"; readonly content: string | readonly AssistantPart[] }
  | (Omit<ToolMessage, "isError"> & { readonly isError?: boolean });
