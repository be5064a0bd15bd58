import type { EventSourceMessage } from "eventsource-parser";
import { EventSourceParserStream } from "eventsource-parser/stream";
import {
  AuthenticationError,
  BadRequestError,
  ContextTooLongError,
  NetworkError,
  OverloadedError,
  type ProviderError,
  ProviderServerError,
  RateLimitError,
} from "../../../errors/provider-error.js";

export interface HttpRequest {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/** Milliseconds from `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && milliseconds.trim() !== "" && Number.isFinite(Number(milliseconds))) {
    return Math.max(0, Number(milliseconds));
  }
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const contextTooLong =
  /context[_ -]?length|context window|too many tokens|prompt is too long|maximum context|input is too long|exceeds the maximum/i;

/** The typed error for a non-2xx HTTP answer. */
export function classifyHttpError(fields: {
  provider: string;
  status: number;
  headers: Headers;
  bodyText: string;
}): ProviderError {
  const { provider, status, headers, bodyText } = fields;
  const detail = extractMessage(bodyText);
  const base = { provider, status, message: `HTTP ${status}: ${detail}`, retryAfterMs: parseRetryAfter(headers) };
  if (status === 401 || status === 403) return new AuthenticationError(base);
  if (status === 408 || status === 409 || status === 429) return new RateLimitError(base);
  if (status === 529 || /overloaded/i.test(bodyText)) return new OverloadedError(base);
  if ((status === 400 || status === 413) && contextTooLong.test(bodyText)) return new ContextTooLongError(base);
  if (status >= 500) return new ProviderServerError(base);
  return new BadRequestError(base);
}

function extractMessage(bodyText: string): string {
  try {
    const body = JSON.parse(bodyText) as { error?: { message?: unknown } | unknown; message?: unknown };
    const error = body.error as { message?: unknown } | undefined;
    if (typeof error?.message === "string") return error.message;
    if (typeof body.message === "string") return body.message;
  } catch {
    // not JSON: use the text itself
  }
  return bodyText.slice(0, 500) || "(empty body)";
}

/**
 * POSTs JSON and returns the response when it is 2xx. Failures become typed provider errors; an
 * abort by the caller is rethrown as the signal's reason so the runner can report cancellation.
 */
export async function postJson(request: HttpRequest): Promise<Response> {
  const doFetch = request.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...request.headers },
      body: JSON.stringify(request.body),
      signal: request.signal,
    });
  } catch (cause) {
    if (request.signal?.aborted) throw request.signal.reason;
    throw new NetworkError({ provider: request.provider, message: `request failed: ${describe(cause)}`, cause });
  }
  if (!response.ok) {
    const bodyText = await response.text().catch(() => "");
    throw classifyHttpError({
      provider: request.provider,
      status: response.status,
      headers: response.headers,
      bodyText,
    });
  }
  return response;
}

/** Reads a response body as JSON; a body that is not JSON is a network-level failure of the answer. */
export async function readJson(response: Response, provider: string, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    if (signal?.aborted) throw signal.reason;
    throw new NetworkError({ provider, message: `reading the response failed: ${describe(cause)}`, cause });
  }
  return JSON.parse(text);
}

/** The server-sent events of a response body, decoded as UTF-8 (characters split across chunks are joined). */
export async function* readSse(
  response: Response,
  provider: string,
  signal?: AbortSignal,
): AsyncGenerator<EventSourceMessage> {
  if (response.body === null) return;
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    while (true) {
      let next: ReadableStreamReadResult<EventSourceMessage>;
      try {
        next = await reader.read();
      } catch (cause) {
        if (signal?.aborted) throw signal.reason;
        throw new NetworkError({ provider, message: `stream broke: ${describe(cause)}`, cause });
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
  }
  return String(cause);
}
