export { ContextUpdateError, type ContextUpdateProblem } from "./context-update-error.js";
export { type ErrorFault, NousError, type NousErrorOptions, UserError } from "./nous-error.js";
export {
  AllModelsFailedError,
  AuthenticationError,
  BadRequestError,
  ContextTooLongError,
  MalformedResponseError,
  NetworkError,
  OverloadedError,
  ProviderConfigurationError,
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
  DepthLimitExceededError,
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
export {
  EventNotSerializableError,
  EventSequenceError,
  SessionConflictError,
  SessionExistsError,
  SessionNotFoundError,
  StoreArgumentError,
  StoreClosedError,
  StoreError,
} from "./store-errors.js";
export { UnexpectedModelCallError } from "./unexpected-model-call-error.js";
export { DefinitionError, ToolNameConflictError, UnknownModelError } from "./user-errors.js";
