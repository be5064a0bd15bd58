export { type AgentIdentity, AgentMismatchError } from "./agent-mismatch-error.js";
export { BlobDamagedError } from "./blob-damaged-error.js";
export { ConformanceCheckError } from "./conformance-check-error.js";
export { ContextUpdateError, type ContextUpdateProblem } from "./context-update-error.js";
export { EmbeddingCountMismatchError, EmbeddingInputError } from "./embedding-errors.js";
export {
  QueueArgumentError,
  QueuedRunFailedError,
  QueueFullError,
  QueueUnavailableError,
  TenantBudgetExceededError,
} from "./fleet-errors.js";
export { LeaseLostError } from "./lease-errors.js";
export { NoDefaultStoreError } from "./no-default-store-error.js";
export { NonJsonValueError } from "./non-json-value-error.js";
export { type ErrorFault, NousError, type NousErrorOptions, UserError } from "./nous-error.js";
export { OptionalPeerMissingError } from "./optional-peer-missing-error.js";
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
export { RequestRebuildError, type RequestRebuildProblem } from "./request-rebuild-error.js";
export {
  type ApprovalPathStep,
  ApprovalPendingError,
  CancelledError,
  CostUnknownError,
  DepthLimitExceededError,
  LimitError,
  MaxIterationsExceededError,
  ModelBehaviorError,
  type NestedCallRecord,
  OutputValidationError,
  type PendingToolCall,
  ReplayDivergedError,
  SessionStateError,
  ToolInDoubtError,
  ToolRetriesExceededError,
  ToolRetryError,
  UsageLimitExceededError,
  type UsageLimitName,
} from "./run-errors.js";
export { SessionLogFormatError } from "./session-log-format-error.js";
export { SqliteDriverMissingError, type SqliteDriverProblem } from "./sqlite-driver-missing-error.js";
export {
  EventCorruptedError,
  type EventDamage,
  EventNotSerializableError,
  EventSequenceError,
  SessionConflictError,
  type SessionConflictFields,
  SessionExistsError,
  SessionNotFoundError,
  StoreArgumentError,
  StoreClosedError,
  StoreError,
  type StoreErrorCode,
  UnrecognizedStoreError,
  type UnrecognizedStoreReason,
} from "./store-errors.js";
export { ToolFailedError } from "./tool-failed-error.js";
export { ChatRequestError, type ChatRequestProblem, ChatRunActiveError } from "./ui-chat-errors.js";
export { UnexpectedModelCallError } from "./unexpected-model-call-error.js";
export { UnsupportedContentError, type UnsupportedContentPlace } from "./unsupported-content-error.js";
export {
  ApprovalArgumentsError,
  DefinitionError,
  ToolNameConflictError,
  UnknownModelError,
  UnsupportedSchemaError,
} from "./user-errors.js";
