import { NousError } from "./nous-error.js";

export interface ProviderErrorFields {
  provider: string;
  message: string;
  status?: number;
  /** How long the provider asked us to wait (from `retry-after` / `retry-after-ms`), if it said. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * A model provider failed (HTTP error, network, malformed or truncated response). Each failure class
 * is its own subclass with a stable `code`; `retryable` tells whether the same request may succeed
 * later. Fallback chains move on to the next model only for provider errors.
 */
export abstract class ProviderError extends NousError {
  readonly fault = "provider" as const;
  abstract readonly retryable: boolean;
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(fields: ProviderErrorFields) {
    super({ message: `${fields.provider}: ${fields.message}`, cause: fields.cause });
    this.provider = fields.provider;
    this.status = fields.status;
    this.retryAfterMs = fields.retryAfterMs;
  }
}

/** 401/403: the API key is missing, wrong or not allowed. */
export class AuthenticationError extends ProviderError {
  readonly code = "provider_authentication";
  readonly retryable = false;
}
/** 429 (and 408/409 treated alike): too many requests now. */
export class RateLimitError extends ProviderError {
  readonly code = "provider_rate_limit";
  readonly retryable = true;
}
/** 529 / 503 "overloaded": the provider is at capacity. */
export class OverloadedError extends ProviderError {
  readonly code = "provider_overloaded";
  readonly retryable = true;
}
/** 400/404/413/422: the request itself is wrong; retrying the same request will fail again. */
export class BadRequestError extends ProviderError {
  readonly code = "provider_bad_request";
  readonly retryable = false;
}
/** The prompt does not fit the model's context window. */
export class ContextTooLongError extends ProviderError {
  readonly code = "provider_context_too_long";
  readonly retryable = false;
}
/** 5xx: the provider failed. */
export class ProviderServerError extends ProviderError {
  readonly code = "provider_server_error";
  readonly retryable = true;
}
/** The connection failed or broke. */
export class NetworkError extends ProviderError {
  readonly code = "provider_network";
  readonly retryable = true;
}
/** The request took longer than its timeout. */
export class ProviderTimeoutError extends ProviderError {
  readonly code = "provider_timeout";
  readonly retryable = true;
}
/** The provider answered with something that does not follow its documented format. */
export class MalformedResponseError extends ProviderError {
  readonly code = "provider_malformed_response";
  readonly retryable = false;
}
/** A stream ended before its terminal event: nothing half-received (a tool call above all) is used. */
export class StreamTruncatedError extends ProviderError {
  readonly code = "provider_stream_truncated";
  readonly retryable = true;
}

/**
 * A provider is configured wrongly in a way no request can fix: for example the `custom`
 * OpenAI-compatible provider without a base URL. Raised when the model is made.
 */
export class ProviderConfigurationError extends ProviderError {
  readonly code = "provider_configuration";
  readonly retryable = false;
}

/**
 * Every model of a fallback chain failed with a provider error. `errors` holds each model's error
 * in chain order; the chain is `retryable` when every one of them was.
 */
export class AllModelsFailedError extends ProviderError {
  readonly code = "all_models_failed";
  readonly retryable: boolean;
  readonly errors: readonly ProviderError[];

  constructor(fields: Omit<ProviderErrorFields, "message"> & { errors: readonly ProviderError[] }) {
    super({
      ...fields,
      message: `all ${fields.errors.length} models failed: ${fields.errors.map((error) => error.message).join("; ")}`,
      cause: fields.errors.at(-1),
    });
    this.errors = fields.errors;
    this.retryable = fields.errors.length > 0 && fields.errors.every((error) => error.retryable);
  }
}
