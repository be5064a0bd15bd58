import type { ToolMessage } from "../../session/messages.js";
import type { AiSdkToolOutput } from "./ai-sdk-types.js";

/**
 * A tool message's output in the SDK's prompt: `text`/`json` (or their `error-` forms), or — when
 * the tool returned content parts — `content`, the result's text first, then the parts (v3:
 * `image-data` and `file-data`; v2: `media`).
 */
export function aiSdkToolOutput(message: ToolMessage, version: "v2" | "v3"): AiSdkToolOutput {
  const text = typeof message.result === "string";
  if (message.content === undefined || message.content.length === 0) {
    const kind = message.isError ? (text ? "error-text" : "error-json") : text ? "text" : "json";
    return text
      ? { type: kind as "text" | "error-text", value: message.result as string }
      : { type: kind as "json" | "error-json", value: message.result };
  }
  const resultText = text ? (message.result as string) : (JSON.stringify(message.result) ?? "null");
  const value: Extract<AiSdkToolOutput, { type: "content" }>["value"] =
    resultText === "" ? [] : [{ type: "text", text: resultText }];
  for (const part of message.content) {
    if (part.type === "text") value.push({ type: "text", text: part.text });
    else if (version === "v2") value.push({ type: "media", data: part.data, mediaType: part.mediaType });
    else if (part.type === "image" || part.mediaType.startsWith("image/"))
      value.push({ type: "image-data", data: part.data, mediaType: part.mediaType });
    else
      value.push({
        type: "file-data",
        data: part.data,
        mediaType: part.mediaType,
        ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {}),
      });
  }
  return { type: "content", value };
}
