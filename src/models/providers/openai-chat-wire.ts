// The wire code of openai-chat.ts: loaded on its first request, so that importing the package does not load it.
export { toChatBody } from "./openai-chat-request.js";
export { ChatStreamAssembler, parseChatCompletion } from "./openai-chat-response.js";
