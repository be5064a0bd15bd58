// The wire code of anthropic.ts: loaded on its first request, so that importing the package does not load it.
export { postAnthropic, readAnthropicJson } from "./anthropic-errors.js";
export { betaHeader } from "./anthropic-native-tools.js";
export { buildAnthropicRequest } from "./anthropic-request.js";
export { parseAnthropicResponse } from "./anthropic-response.js";
export { streamAnthropic } from "./anthropic-stream.js";
