// The wire code of gemini.ts: loaded on its first request, so that importing the package does not load it.
export { postGemini } from "./gemini-errors.js";
export { buildGeminiRequest } from "./gemini-request.js";
export { parseGeminiResponse } from "./gemini-response.js";
export { streamGemini } from "./gemini-stream.js";
