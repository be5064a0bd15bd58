import {
  AuthenticationError,
  BadRequestError,
  ContextTooLongError,
  OverloadedError,
  ProviderError,
  ProviderServerError,
  ProviderTimeoutError,
  RateLimitError,
} from "../../errors/provider-error.js";
import { type HttpRequest, postJson } from "./shared/http.js";

const PROVIDER = "gemini";

/** Google's error body: `{"error":{"code":429,"message":"...","status":"RESOURCE_EXHAUSTED","details":[...]}}`. */
export interface GeminiErrorBody {
  readonly code: number | undefined;
  readonly status: string;
  readonly message: string;
  /** `reason` values of `google.rpc.ErrorInfo` details, such as `API_KEY_INVALID`. */
  readonly reasons: readonly string[];
  /** The wait a `google.rpc.RetryInfo` detail asks for (its `retryDelay`), in ms. */
  readonly retryDelayMs: number | undefined;
}

/**
 * Milliseconds from a `google.protobuf.Duration` in its JSON form (`"34.4s"`, `"22s"`,
 * `"10.689924287s"`), rounded up so a wait is never shorter than asked; undefined for anything else.
 *
 * @example
 * parseRetryDelay("34.4s"); // 34400
 */
export function parseRetryDelay(text: string): number | undefined {
  const match = /^(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (match === null) return undefined;
  const nanos = Number((match[2] ?? "").padEnd(9, "0"));
  return Number(match[1]) * 1000 + Math.ceil(nanos / 1_000_000);
}

function retryDelayOf(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (typeof detail !== "object" || detail === null) continue;
    const { "@type": type, retryDelay } = detail as Record<string, unknown>;
    const isRetryInfo = typeof type !== "string" || type.endsWith("google.rpc.RetryInfo");
    if (isRetryInfo && typeof retryDelay === "string") return parseRetryDelay(retryDelay.trim());
  }
  return undefined;
}

/** The `error` object of a Google error body (or of an error chunk inside a stream), if the value has one. */
export function geminiErrorOf(value: unknown): GeminiErrorBody | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, status, message, details } = error as Record<string, unknown>;
  const reasons = Array.isArray(details)
    ? details.flatMap((detail) => {
        const reason = (detail as { reason?: unknown } | null)?.reason;
        return typeof reason === "string" ? [reason] : [];
      })
    : [];
  return {
    code: typeof code === "number" ? code : undefined,
    status: typeof status === "string" ? status : "UNKNOWN",
    message: typeof message === "string" ? message : "(no message)",
    reasons,
    retryDelayMs: retryDelayOf(details),
  };
}

const contextTooLong = /exceeds the maximum number of tokens|input token count|context window|too many tokens/i;

function isAuthFailure(error: GeminiErrorBody): boolean {
  return (
    error.status === "UNAUTHENTICATED" ||
    error.status === "PERMISSION_DENIED" ||
    error.reasons.some((reason) => /API_KEY|ACCESS_TOKEN|CREDENTIALS/.test(reason))
  );
}

/** The typed error for a Google error reported without an HTTP status (an error chunk in a 200 stream). */
export function geminiStreamError(error: GeminiErrorBody): ProviderError {
  const fields = { provider: PROVIDER, message: `${error.status}: ${error.message}`, retryAfterMs: error.retryDelayMs };
  if (isAuthFailure(error)) return new AuthenticationError(fields);
  switch (error.status) {
    case "RESOURCE_EXHAUSTED":
      return new RateLimitError(fields);
    case "UNAVAILABLE":
      return /overloaded/i.test(error.message) ? new OverloadedError(fields) : new ProviderServerError(fields);
    case "INVALID_ARGUMENT":
    case "FAILED_PRECONDITION":
    case "OUT_OF_RANGE":
      return contextTooLong.test(error.message) ? new ContextTooLongError(fields) : new BadRequestError(fields);
    case "NOT_FOUND":
      return new BadRequestError(fields);
    case "DEADLINE_EXCEEDED":
      return new ProviderTimeoutError(fields);
    default:
      return new ProviderServerError(fields);
  }
}

/**
 * Sharpens the status-based classification with Google's `error.status` and details: an invalid
 * API key answers 400 `INVALID_ARGUMENT` with reason `API_KEY_INVALID`, which is an authentication
 * failure; `RESOURCE_EXHAUSTED` is a rate limit whatever the status.
 */
function refineHttpError(error: ProviderError, bodyText: string): ProviderError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return error;
  }
  const body = geminiErrorOf(parsed);
  const generic =
    error instanceof BadRequestError || error instanceof ContextTooLongError || error instanceof ProviderServerError;
  if (body === undefined || !generic) return error;
  const fields = {
    provider: PROVIDER,
    status: error.status,
    retryAfterMs: error.retryAfterMs,
    message: `HTTP ${error.status}: ${body.status}: ${body.message}`,
    cause: error,
  };
  if (isAuthFailure(body)) return new AuthenticationError(fields);
  if (body.status === "RESOURCE_EXHAUSTED") return new RateLimitError(fields);
  return error;
}

/** Google's `RetryInfo.retryDelay` in an error body, in ms. */
function retryDelayOfBody(bodyText: string): number | undefined {
  try {
    return geminiErrorOf(JSON.parse(bodyText))?.retryDelayMs;
  } catch {
    return undefined;
  }
}

/**
 * `postJson` whose failures are also classified by Google's error status and reasons, and carry
 * the delay a `google.rpc.RetryInfo` detail asks for as `retryAfterMs`.
 */
export async function postGemini(request: HttpRequest): Promise<Response> {
  const baseFetch = request.fetch ?? globalThis.fetch;
  let errorBody = "";
  const capturing: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.ok) return response;
    errorBody = await response.text().catch(() => "");
    return new Response(errorBody, { status: response.status, headers: response.headers });
  };
  try {
    return await postJson({ ...request, fetch: capturing, retryAfterFromBody: retryDelayOfBody });
  } catch (error) {
    if (error instanceof ProviderError && error.status !== undefined) throw refineHttpError(error, errorBody);
    throw error;
  }
}
