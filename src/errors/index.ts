export { ContextUpdateError, type ContextUpdateProblem } from "./context-update-error.js";
export { type ErrorFault, NousError, type NousErrorOptions, UserError } from "./nous-error.js";
export {
  AuthenticationError,
  BadRequestError,
  ContextTooLongError,
  MalformedResponseError,
  NetworkError,
  OverloadedError,
  ProviderError,
  type ProviderErrorFields,
  ProviderServerError,
  ProviderTimeoutError,
  RateLimitError,
  StreamTruncatedError,
} from "./provider-error.js";
export {
  ApprovalPendingError,
  CancelledError,
  LimitError,
  MaxIterationsExceededError,
  ModelBehaviorError,
  OutputValidationError,
  type PendingToolCall,
  SessionStateError,
  ToolInDoubtError,
  ToolRetriesExceededError,
  ToolRetryError,
  UsageLimitExceededError,
  type UsageLimitName,
} from "./run-errors.js";
export { SessionLogFormatError } from "./session-log-format-error.js";
export { DefinitionError, UnknownModelError } from "./user-errors.js";
