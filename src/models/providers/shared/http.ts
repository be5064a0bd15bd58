import type { EventSourceMessage } from "eventsource-parser";
import {
  AuthenticationError,
  BadRequestError,
  ContextTooLongError,
  MalformedResponseError,
  NetworkError,
  OverloadedError,
  type ProviderError,
  ProviderServerError,
  RateLimitError,
  StreamTruncatedError,
} from "../../../errors/provider-error.js";
import { lazyModule } from "./lazy-module.js";
import { createSseDecoder } from "./sse-decoder.js";

/** The SSE parser, loaded by the first stream rather than when the package is imported. */
const sseParser = lazyModule(() => import("eventsource-parser"));

export interface HttpRequest {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** The delay an error body asks for, in ms, for dialects that put it there (Gemini's `RetryInfo`). */
  retryAfterFromBody?: (bodyText: string) => number | undefined;
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

/**
 * The typed error for a non-2xx HTTP answer. `retryAfterMs` is the delay the server asked for: the
 * `retry-after(-ms)` header, or `bodyRetryAfterMs` (read from the body by the dialect); when both
 * are given, the longer, so that neither request is cut short.
 */
export function classifyHttpError(fields: {
  provider: string;
  status: number;
  headers: Headers;
  bodyText: string;
  bodyRetryAfterMs?: number | undefined;
}): ProviderError {
  const { provider, status, headers, bodyText } = fields;
  const detail = extractMessage(bodyText);
  const retryAfterMs = longest(parseRetryAfter(headers), fields.bodyRetryAfterMs);
  const base = { provider, status, message: `HTTP ${status}: ${detail}`, retryAfterMs };
  if (status === 401 || status === 403) return new AuthenticationError(base);
  if (status === 408 || status === 409 || status === 429) return new RateLimitError(base);
  if (status === 529 || /overloaded/i.test(bodyText)) return new OverloadedError(base);
  if ((status === 400 || status === 413) && contextTooLong.test(bodyText)) return new ContextTooLongError(base);
  if (status >= 500) return new ProviderServerError(base);
  return new BadRequestError(base);
}

function longest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
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
      bodyRetryAfterMs: request.retryAfterFromBody?.(bodyText),
    });
  }
  return response;
}

/** Reads a response body as JSON; a body that is not JSON is a malformed response. */
export async function readJson(response: Response, provider: string, signal?: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    if (signal?.aborted) throw signal.reason;
    throw new NetworkError({ provider, message: `reading the response failed: ${describe(cause)}`, cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new MalformedResponseError({ provider, message: `the response is not JSON: ${text.slice(0, 200)}`, cause });
  }
}

/**
 * The server-sent events of a response body, decoded as UTF-8 (characters split across chunks are
 * joined). Lines may end in LF, CRLF or a bare CR, as the SSE standard allows: each event is handed
 * over as soon as its blank line has arrived, whatever the line ending and wherever the body was cut
 * into reads. An event not completed by a blank line when the body ends is dropped, never guessed at;
 * a connection that breaks mid-body is a `StreamTruncatedError`. Checking that the dialect's
 * terminal event arrived is the caller's job.
 */
export async function* readSse(
  response: Response,
  provider: string,
  signal?: AbortSignal,
): AsyncGenerator<EventSourceMessage> {
  for await (const batch of readSseBatches(response, provider, signal)) yield* batch;
}

/**
 * `readSse`, a network read at a time: the events each read of the body completed, in order (an
 * array per read, never empty). A caller that handles events synchronously saves an asynchronous
 * hop per event. A body left unread is cancelled when the caller stops, unless its dialect's
 * terminal event (`isTerminal`) arrived: then the body is complete and a cancel would only cost.
 */
export async function* readSseBatches(
  response: Response,
  provider: string,
  signal?: AbortSignal,
  isTerminal?: (event: EventSourceMessage) => boolean,
): AsyncGenerator<readonly EventSourceMessage[]> {
  if (response.body === null) return;
  const { createParser } = sseParser.loaded ?? (await sseParser.load());
  const reader = response.body.getReader();
  const decoder = createSseDecoder(createParser);
  let complete = false;
  try {
    while (true) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (cause) {
        if (signal?.aborted) throw signal.reason;
        throw new StreamTruncatedError({ provider, message: `the stream broke: ${describe(cause)}`, cause });
      }
      const events = next.done ? decoder.end() : decoder.push(next.value);
      complete ||= next.done || (isTerminal !== undefined && events.some(isTerminal));
      if (events.length > 0) yield events;
      if (next.done) return;
    }
  } finally {
    if (!complete) await reader.cancel().catch(() => {});
  }
}

/**
 * A signal for one provider call, following the caller's: fetch may keep a listener on the signal
 * it is given until garbage collection, so it gets this per-call signal and the caller's signal
 * carries one listener only while the call runs. Call `release` when the call is over.
 */
export function scopeSignal(parent: AbortSignal | undefined): { signal: AbortSignal | undefined; release(): void } {
  // No caller signal: none for fetch either (a signal makes undici register an abort listener per request).
  if (parent === undefined) return { signal: undefined, release: () => {} };
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const forward = () => controller.abort(parent.reason);
  parent.addEventListener("abort", forward, { once: true });
  return { signal: controller.signal, release: () => parent.removeEventListener("abort", forward) };
}

/** The typed error for an error a provider reported inside a 2xx answer (a stream's error event). */
export function classifyErrorCode(fields: { provider: string; code?: string; message: string }): ProviderError {
  const { provider } = fields;
  const code = (fields.code ?? "").toLowerCase();
  const message = fields.code === undefined ? fields.message : `${fields.code}: ${fields.message}`;
  const base = { provider, message };
  if (/rate_limit|too_many_requests|quota/.test(code)) return new RateLimitError(base);
  if (/overloaded|unavailable|capacity/.test(code)) return new OverloadedError(base);
  if (/context_length|too_long|context_window/.test(code) || contextTooLong.test(fields.message)) {
    return new ContextTooLongError(base);
  }
  if (/auth|permission|api_key/.test(code)) return new AuthenticationError(base);
  if (/invalid|bad_request|not_found|unsupported/.test(code)) return new BadRequestError(base);
  return new ProviderServerError(base);
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
  }
  return String(cause);
}

/** The provider's id of an HTTP request, from the response header that carries it (`x-request-id`, `request-id`). */
export function requestIdOf(response: Response): string | undefined {
  return response.headers.get("x-request-id") ?? response.headers.get("request-id") ?? undefined;
}

/** A response with the HTTP request's id added, when there is one. */
export function withRequestId<R extends { readonly requestId?: string }>(
  response: R,
  requestId: string | undefined,
): R {
  return requestId === undefined ? response : { ...response, requestId };
}
