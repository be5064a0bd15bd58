export {
  Agent,
  type ParentRun,
  type ResumeArguments,
  type ResumeOptions,
  type RunArguments,
  type SessionRunOptions,
} from "./agent/agent.js";
export { type AgentDefinition, agentDefinitionHash, agentMismatch, recordedAgent } from "./agent/agent-identity.js";
export { type InDoubtCall, type InDoubtTools, inDoubtCalls } from "./agent/in-doubt-calls.js";
export type {
  QueuedAgent,
  QueuedOutcome,
  QueuedReadOptions,
  RunQueuePort,
  Submission,
  SubmitOptions,
} from "./agent/run-queue-port.js";
export type { EndedRun, RunTelemetry, RunTelemetryScope } from "./agent/run-telemetry-port.js";
export { DEFAULT_LEASE_TTL_MS } from "./agent/session-lease.js";
export {
  ApprovalMismatchError,
  type ApprovalTool,
  type ApprovalVerdict,
  type DecideApprovalOptions,
  decideApproval,
  hashArgs,
  type ListPendingApprovalsOptions,
  listPendingApprovals,
  type PendingApproval,
  pendingApprovalsOf,
} from "./approvals/approvals.js";
// Error classes of the optional parts, so one import catches them all (the modules are light: no sandbox or SDK loads).
export { CodeExecutionError, CodeLimitError } from "./code-mode/errors.js";
export {
  type AppendOperation,
  type ContextOperation,
  ContextUpdate,
  type DeepPartial,
  type DeleteOperation,
  type DepsHolder,
  type DepsKey,
  type DepsOperation,
  deepMerge,
  foldOperations,
  isPlainObject,
  type ListItem,
  type ListKey,
  type LogEventOperation,
  type MergeOperation,
  type ObjectKey,
  type SetOperation,
  type UpdatableContext,
  type UpdateSource,
} from "./context/index.js";
export { costOfResponse, loadPricesIfNeeded } from "./cost/logged-cost.js";
export {
  CUSTOM_PRICE_SOURCE,
  type ModelRates,
  type Pricing,
  priceResponse,
} from "./cost/price-response.js";
export { loadPriceSource, PRICE_SOURCE, type PriceModule } from "./cost/price-source.js";
export { addCost, noCost, type RecordedCost, type RunCost } from "./cost/recorded-cost.js";
export { projectRunCost, responseCost } from "./cost/run-cost.js";
export { sessionCost } from "./cost/session-cost.js";
export { type EmbedOptions, type EmbedResult, embed } from "./embeddings/embed.js";
export type { EmbeddingBatchOptions } from "./embeddings/embed-batch.js";
export {
  DEFAULT_MAX_PARALLEL_CALLS,
  type EmbeddingBatchInfo,
  type EmbedManyOptions,
  type EmbedManyResult,
  embedMany,
} from "./embeddings/embed-many.js";
export {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingModel,
  type EmbeddingProviderOptions,
  type EmbeddingRequest,
  type EmbeddingResponse,
  type EmbeddingUsage,
} from "./embeddings/embedding-model.js";
export {
  type EmbeddingModelFactory,
  embeddingModel,
  registerEmbeddingProvider,
  registeredEmbeddingProviders,
} from "./embeddings/embedding-registry.js";
export { createGeminiEmbeddingModel } from "./embeddings/gemini-embedding-model.js";
export {
  createOpenAICompatibleEmbeddingModel,
  createOpenAIEmbeddingModel,
  type OpenAIEmbeddingSettings,
} from "./embeddings/openai-embedding-model.js";
export type { EmbeddingEncoding } from "./embeddings/openai-embedding-wire.js";
export { CompactionFailedError, type CompactionProblem } from "./errors/compaction-error.js";
export { EmbeddingCountMismatchError, EmbeddingInputError } from "./errors/embedding-errors.js";
export {
  type AgentIdentity,
  AgentMismatchError,
  AllModelsFailedError,
  ApprovalArgumentsError,
  type ApprovalPathStep,
  ApprovalPendingError,
  AuthenticationError,
  BadRequestError,
  BlobDamagedError,
  CancelledError,
  ChatRequestError,
  type ChatRequestProblem,
  ChatRunActiveError,
  ConformanceCheckError,
  ContextTooLongError,
  ContextUpdateError,
  type ContextUpdateProblem,
  CostUnknownError,
  DefinitionError,
  DepthLimitExceededError,
  type ErrorFault,
  EventCorruptedError,
  type EventDamage,
  EventNotSerializableError,
  EventSequenceError,
  LeaseLostError,
  LimitError,
  MalformedResponseError,
  MaxIterationsExceededError,
  ModelBehaviorError,
  type NestedCallRecord,
  NetworkError,
  NoDefaultStoreError,
  NonJsonValueError,
  NousError,
  type NousErrorOptions,
  OptionalPeerMissingError,
  OutputValidationError,
  OverloadedError,
  type PendingToolCall,
  ProviderConfigurationError,
  ProviderError,
  type ProviderErrorFields,
  ProviderServerError,
  ProviderTimeoutError,
  QueueArgumentError,
  QueuedRunFailedError,
  QueueFullError,
  QueueUnavailableError,
  RateLimitError,
  ReplayDivergedError,
  RequestRebuildError,
  type RequestRebuildProblem,
  SessionConflictError,
  SessionExistsError,
  SessionLogFormatError,
  SessionNotFoundError,
  SessionStateError,
  SqliteDriverMissingError,
  type SqliteDriverProblem,
  StoreArgumentError,
  StoreClosedError,
  StoreError,
  type StoreErrorCode,
  StreamTruncatedError,
  TenantBudgetExceededError,
  ToolFailedError,
  ToolInDoubtError,
  ToolNameConflictError,
  ToolRetriesExceededError,
  ToolRetryError,
  UnexpectedModelCallError,
  UnknownModelError,
  UnrecognizedStoreError,
  type UnrecognizedStoreReason,
  UnsupportedContentError,
  type UnsupportedContentPlace,
  UnsupportedSchemaError,
  UsageLimitExceededError,
  type UsageLimitName,
  UserError,
} from "./errors/index.js";
export { ProviderToolUnsupportedError } from "./errors/provider-tool-error.js";
export { getLogger, type Logger, resetLogger, setLogger } from "./logging/logger.js";
export { McpConnectionError, McpToolError } from "./mcp/mcp-errors.js";
export { type AiSdkLanguageModel, fromAiSdk } from "./models/adapters/ai-sdk.js";
export { withFallback } from "./models/fallback.js";
export {
  type FinishReason,
  isMessagePart,
  type JsonSchema,
  type MessageResponsePart,
  MODEL_SPECIFICATION_VERSION,
  type Model,
  type ModelCallNotice,
  type ModelCapabilities,
  type ModelRequest,
  type ModelResponse,
  type ModelSettings,
  type ModelStreamPart,
  type ModelUsage,
  modelName,
  type NativeOutputSpec,
  type PromptCacheSettings,
  type ResponsePart,
  type ToolChoice,
  type ToolDefinition,
  type WireTarget,
} from "./models/model.js";
export { OFFLINE_NOTICE, OfflineModel, type OfflineModelOptions } from "./models/offline-model.js";
export {
  type OfflineRule,
  type OfflineToolCall,
  type OfflineToolResult,
  offlineRules,
} from "./models/offline-rules.js";
export { isProviderTool, type ProviderTool, type Source } from "./models/provider-tool.js";
export {
  type AnthropicSettings,
  anthropicSupportsNativeOutput,
  createAnthropicModel,
} from "./models/providers/anthropic.js";
export { type AnthropicWebSearchOptions, anthropicTools } from "./models/providers/anthropic-tools.js";
export { createGeminiModel, type GeminiSettings } from "./models/providers/gemini.js";
export { geminiTools } from "./models/providers/gemini-tools.js";
export { createOpenAIChatModel, type OpenAIChatSpec } from "./models/providers/openai-chat.js";
export {
  createOpenAICompatibleModel,
  type OpenAICompatibleProvider,
  openAICompatiblePresets,
} from "./models/providers/openai-compatible.js";
export { createOpenAIResponsesModel } from "./models/providers/openai-responses.js";
export {
  type ApproximateLocation,
  type OpenAICodeInterpreterOptions,
  type OpenAIFileSearchOptions,
  type OpenAIWebSearchOptions,
  openaiTools,
} from "./models/providers/openai-tools.js";
export { rebuildRequest } from "./models/providers/rebuild-request.js";
export {
  type ModelFactory,
  type ProviderSettings,
  registeredProviders,
  registerProvider,
  resolveModel,
} from "./models/registry.js";
export {
  abortableSleep,
  type RetryAttempt,
  type RetryPolicy,
  type RetryTarget,
  retryCall,
  withRetry,
} from "./models/retry.js";
export { secretPlaceholder } from "./redaction/placeholder.js";
export { redact, redactError } from "./redaction/redact.js";
export { Secret, secret } from "./redaction/secret.js";
export { MIN_SECRET_LENGTH, redactText, registerSecret } from "./redaction/secret-registry.js";
export {
  type AgentStream,
  type AgentStreamEvent,
  type AgentStreamIterator,
  isDelta,
  isLogEvent,
  type StreamDelta,
  type StreamedLogEvent,
} from "./runner/agent-stream-event.js";
export {
  type CompactionPolicy,
  type DropToolResultsPolicy,
  dropToolResults,
  type SummarizePolicy,
  summarizeHistory,
} from "./runner/compaction-policy.js";
export { estimateRequestTokens } from "./runner/context-tokens.js";
export { OUTPUT_TOOL_NAME } from "./runner/output-spec.js";
export type { OutputElement, OutputStreamEvent, PartialValue } from "./runner/output-stream-event.js";
export { PartialJsonParser } from "./runner/partial-json.js";
export type { InDoubtDecision, InDoubtResolver } from "./runner/run-state.js";
export type {
  AgentHooks,
  AgentOptions,
  ApprovalDecision,
  ApprovalHandler,
  Instructions,
  LeaseSettings,
  OutputMode,
  PreToolUseDecision,
  Prompt,
  RunOptions,
  RunResult,
  ToolCallInfo,
  UsageLimits,
} from "./runner/types.js";
export { applyCompaction, type MessageView, SUMMARY_PREFIX } from "./session/compaction-view.js";
export type { CompactionData, RequestPurpose } from "./session/events.js";
export {
  AgentContext,
  type AgentContextOptions,
  type AssistantMessage,
  type AssistantPart,
  addUsage,
  type BlobRefPart,
  type BuiltinEvent,
  type BuiltinEventType,
  type ChildPause,
  type CustomEvent,
  deserializeLog,
  type EventDataMap,
  type EventMeta,
  type EventOf,
  emptyUsage,
  isBuiltinEvent,
  isEventOf,
  isSurfaceType,
  type Message,
  type MessageInput,
  type NestedCall,
  type NestedCallOutcome,
  projectDeps,
  projectMessage,
  projectMessages,
  projectUsage,
  type RecordedError,
  type RecordedRequest,
  type RecordedSettings,
  RunContext,
  type RunContextOptions,
  type RunSeam,
  recordedRequest,
  SESSION_LOG_SCHEMA_VERSION,
  type SerializedSessionLog,
  type SessionEvent,
  SessionLog,
  SURFACE_EVENT_TYPES,
  type SurfaceEventType,
  type SystemMessage,
  serializeLog,
  type ToolMessage,
  type ToolResultPart,
  type Usage,
  type UserContentPart,
  type UserMessage,
  windowMessages,
} from "./session/index.js";
export {
  type AcquireLeaseOptions,
  type AppendOptions,
  type BlobInput,
  type BlobStore,
  blobHash,
  externalizeBlobs,
  type ForkOptions,
  identifierProblem,
  type Lease,
  type ListFilter,
  MAX_IDENTIFIER_LENGTH,
  MemoryStore,
  type MemoryStoreOptions,
  type ReadOptions,
  resolveBlobs,
  SESSION_STATUSES,
  type SessionPage,
  type SessionStatus,
  type SessionStore,
  type SessionSummary,
  type SessionVerification,
  type StorageCheck,
  type StoredBlob,
  type StoreVerification,
} from "./store/index.js";
export { childSessionsOf, type SessionUsage, sessionUsage, UNKNOWN_MODEL } from "./sub-agents/session-usage.js";
export {
  type AgentAsToolOptions,
  agentAsTool,
  type DefaultSubAgentInput,
  type DelegateArguments,
  type DelegateOptions,
  type Delegation,
  delegate,
  SubAgentContextError,
  SubAgentFailedError,
  SubAgentToolsError,
} from "./sub-agents/sub-agent.js";
export {
  type AgentTool,
  type AnyTool,
  type CompiledSchema,
  type InferSchema,
  isToolContent,
  type NeedsApproval,
  type SchemaInput,
  type Tool,
  type ToolConfig,
  type ToolContent,
  type ToolReturn,
  tool,
  toolContent,
} from "./tools/index.js";
export { sessionToUIMessages, uiMessagesFromEvents } from "./ui-stream/session-to-ui-messages.js";
export {
  toUIMessageStream,
  toUIMessageStreamResponse,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageStreamOptions,
  uiMessageStreamResponse,
  uiMessageStreamToSse,
} from "./ui-stream/to-ui-message-stream.js";
export {
  type UIChatAgent,
  type UIChatHandler,
  type UIChatHandlerOptions,
  uiChatHandler,
} from "./ui-stream/ui-chat-handler.js";
export { type ApprovalAnswer, type ChatRequest, parseChatRequest, parseCursor } from "./ui-stream/ui-chat-request.js";
export { UIChunkMapper, type UIChunkMapperOptions } from "./ui-stream/ui-chunk-mapper.js";
export type {
  UIDataChunk,
  UIEventData,
  UIFinishReason,
  UIMessage,
  UIMessageChunk,
  UIMessagePart,
  UIStreamCursor,
  UIToolPart,
} from "./ui-stream/ui-message-chunk.js";
export { UIMessageReducer } from "./ui-stream/ui-message-reducer.js";
