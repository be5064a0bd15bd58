import { NousError } from "../errors/nous-error.js";
import type { AgentStreamEvent } from "../runner/agent-stream-event.js";
import { UIChunkMapper, type UIChunkMapperOptions } from "./ui-chunk-mapper.js";
import type { UIMessageChunk } from "./ui-message-chunk.js";

/** Options of `toUIMessageStream`: see `UIChunkMapperOptions`. */
export type UIMessageStreamOptions = UIChunkMapperOptions;

/**
 * The headers of a UI message stream response, as the `ai` package's own response helper sets them.
 * `x-vercel-ai-ui-message-stream: v1` names the protocol version.
 */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
});

/**
 * An agent stream as a web `ReadableStream` of AI SDK UI message chunks (protocol v1): `start`,
 * `start-step`/`finish-step` around each model request, text, reasoning and tool parts, approval
 * requests, `data-nous-*` parts, then `finish` (or `error` for a failed run). Cancelling the
 * stream (the client went away) stops the run; for runs that outlive a connection use `uiChatHandler`.
 *
 * @example
 * const chunks = toUIMessageStream(agent.stream("Hi", { sessionId: "u42", store }));
 * for await (const chunk of chunks) console.log(chunk.type);
 */
export function toUIMessageStream(
  events: AsyncIterable<AgentStreamEvent> | Iterable<AgentStreamEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  const mapper = new UIChunkMapper(options);
  const iterator: AsyncIterator<AgentStreamEvent> | Iterator<AgentStreamEvent> =
    Symbol.asyncIterator in events ? events[Symbol.asyncIterator]() : events[Symbol.iterator]();
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) {
            for (const chunk of mapper.start()) controller.enqueue(chunk);
            controller.close();
            return;
          }
          const chunks = mapper.map(next.value);
          for (const chunk of chunks) controller.enqueue(chunk);
          if (chunks.length > 0) return;
        }
      } catch (error) {
        for (const chunk of [...mapper.start(), ...(mapper.ended ? [] : [errorChunk(error)])])
          controller.enqueue(chunk);
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/**
 * The error chunk for a failure that ended a stream: a Nous error's `code` and (redacted) message;
 * anything else only as "internal_error", so no foreign message (which might hold a secret) leaks.
 */
export function errorChunk(error: unknown): UIMessageChunk {
  return {
    type: "error",
    errorText: NousError.isInstance(error) ? `${error.code}: ${error.message}` : "internal_error: the run failed",
  };
}

/**
 * UI message chunks framed as server-sent events: `data: <json>\n\n` each, then `data: [DONE]\n\n`.
 *
 * @example
 * const body = uiMessageStreamToSse(toUIMessageStream(agent.stream("Hi")));
 */
export function uiMessageStreamToSse(chunks: ReadableStream<UIMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return chunks
    .pipeThrough(
      new TransformStream<UIMessageChunk, string>({
        transform(chunk, controller) {
          controller.enqueue(`data: ${JSON.stringify(chunk)}\n\n`);
        },
        flush(controller) {
          controller.enqueue("data: [DONE]\n\n");
        },
      }),
    )
    .pipeThrough(
      new TransformStream<string, Uint8Array>({
        transform(text, controller) {
          controller.enqueue(encoder.encode(text));
        },
      }),
    );
}

/**
 * A `Response` for a UI message stream: SSE framing and the protocol's headers (`init` may add more).
 *
 * @example
 * return uiMessageStreamResponse(toUIMessageStream(agent.stream("Hi")), { headers: { "x-chat": "1" } });
 */
export function uiMessageStreamResponse(chunks: ReadableStream<UIMessageChunk>, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS))
    if (!headers.has(name)) headers.set(name, value);
  return new Response(uiMessageStreamToSse(chunks), { ...init, headers });
}

/**
 * An agent stream as the HTTP response `useChat` / `Chat` (AI SDK v6, `DefaultChatTransport`) reads:
 * the UI message stream in SSE framing, with its headers.
 *
 * @example
 * app.post("/api/chat", async (c) => toUIMessageStreamResponse(agent.stream(await promptOf(c), { sessionId, store })));
 */
export function toUIMessageStreamResponse(
  events: AsyncIterable<AgentStreamEvent> | Iterable<AgentStreamEvent>,
  init: ResponseInit & { readonly stream?: UIMessageStreamOptions } = {},
): Response {
  const { stream, ...rest } = init;
  return uiMessageStreamResponse(toUIMessageStream(events, stream), rest);
}
