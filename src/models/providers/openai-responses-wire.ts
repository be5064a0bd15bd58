// The wire code of openai-responses.ts: loaded on its first request, so that importing the package does not load it.
export { toResponsesBody } from "./openai-responses-request.js";
export { parseResponsesAnswer, ResponsesStreamAssembler } from "./openai-responses-response.js";
