import {
  AuthenticationError,
  BadRequestError,
  ContextTooLongError,
  MalformedResponseError,
  OverloadedError,
  ProviderError,
  ProviderServerError,
  ProviderTimeoutError,
  RateLimitError,
} from "../../errors/provider-error.js";
import { type HttpRequest, postJson, readJson } from "./shared/http.js";

const PROVIDER = "anthropic";

/** The error body Anthropic documents: `{"type":"error","error":{"type":"overloaded_error","message":"..."}}`. */
interface AnthropicErrorBody {
  readonly type: string;
  readonly message: string;
}

/** The `error` object of an Anthropic error body or `error` stream event, if the value has one. */
export function anthropicErrorOf(value: unknown): AnthropicErrorBody | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const { type, message } = error as { type?: unknown; message?: unknown };
  return {
    type: typeof type === "string" ? type : "unknown_error",
    message: typeof message === "string" ? message : "(no message)",
  };
}

const contextTooLong = /prompt is too long|context window|too many tokens|maximum context/i;

/**
 * The typed error for an Anthropic error type without an HTTP status (an `error` event inside a
 * stream that had already answered 200).
 */
export function anthropicStreamError(error: AnthropicErrorBody): ProviderError {
  const fields = { provider: PROVIDER, message: `${error.type}: ${error.message}` };
  switch (error.type) {
    case "overloaded_error":
      return new OverloadedError(fields);
    case "rate_limit_error":
      return new RateLimitError(fields);
    case "authentication_error":
    case "permission_error":
      return new AuthenticationError(fields);
    case "invalid_request_error":
      return contextTooLong.test(error.message) ? new ContextTooLongError(fields) : new BadRequestError(fields);
    case "not_found_error":
    case "request_too_large":
      return new BadRequestError(fields);
    case "timeout_error":
      return new ProviderTimeoutError(fields);
    default:
      return new ProviderServerError(fields);
  }
}

/**
 * Sharpens the status-based classification with the body's `error.type`: a generic 400/5xx whose
 * type says overloaded, rate-limited or unauthorized becomes that class, and `request_too_large`
 * (a byte limit, not the context window) stays a bad request.
 */
function refineHttpError(error: ProviderError, bodyText: string): ProviderError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return error;
  }
  const body = anthropicErrorOf(parsed);
  if (body === undefined) return error;
  const fields = {
    provider: PROVIDER,
    status: error.status,
    retryAfterMs: error.retryAfterMs,
    message: `HTTP ${error.status}: ${body.type}: ${body.message}`,
    cause: error,
  };
  if (body.type === "request_too_large") return new BadRequestError(fields);
  const generic =
    error instanceof BadRequestError || error instanceof ContextTooLongError || error instanceof ProviderServerError;
  if (!generic) return error;
  switch (body.type) {
    case "overloaded_error":
      return new OverloadedError(fields);
    case "rate_limit_error":
      return new RateLimitError(fields);
    case "authentication_error":
    case "permission_error":
      return new AuthenticationError(fields);
    default:
      return error;
  }
}

/** `postJson` whose failures are also classified by Anthropic's `error.type`. */
export async function postAnthropic(request: HttpRequest): Promise<Response> {
  const baseFetch = request.fetch ?? globalThis.fetch;
  let errorBody = "";
  const capturing: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.ok) return response;
    errorBody = await response.text().catch(() => "");
    return new Response(errorBody, { status: response.status, headers: response.headers });
  };
  try {
    return await postJson({ ...request, fetch: capturing });
  } catch (error) {
    if (error instanceof ProviderError && error.status !== undefined) throw refineHttpError(error, errorBody);
    throw error;
  }
}

/** Reads a JSON body; a body that is not JSON is a malformed answer. */
export async function readAnthropicJson(response: Response, signal?: AbortSignal): Promise<unknown> {
  try {
    return await readJson(response, PROVIDER, signal);
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new MalformedResponseError({ provider: PROVIDER, message: `the body is not JSON: ${error.message}` });
    }
    throw error;
  }
}
