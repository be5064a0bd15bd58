export { AgentContext, type AgentContextOptions } from "./agent-context.js";
export type { BlobRefPart } from "./binary-parts.js";
export {
  type BuiltinEvent,
  type BuiltinEventType,
  type CustomEvent,
  type EventDataMap,
  type EventMeta,
  type EventOf,
  isBuiltinEvent,
  isEventOf,
  isSurfaceType,
  type RecordedError,
  type RecordedSettings,
  type SessionEvent,
  SURFACE_EVENT_TYPES,
  type SurfaceEventType,
} from "./events.js";
export type {
  AssistantMessage,
  AssistantPart,
  Message,
  MessageInput,
  ProviderMetadata,
  SystemMessage,
  ToolMessage,
  ToolResultPart,
  UserContentPart,
  UserMessage,
} from "./messages.js";
export { projectDeps, projectMessage, projectMessages, projectUsage } from "./projections.js";
export { recordedError } from "./recorded-error.js";
export { type RecordedRequest, recordedRequest, windowMessages } from "./recorded-request.js";
export { RunContext, type RunContextOptions } from "./run-context.js";
export type { ChildPause, NestedCall, NestedCallOutcome, RunSeam } from "./run-seam.js";
export {
  deserializeLog,
  SESSION_LOG_SCHEMA_VERSION,
  type SerializedSessionLog,
  serializeLog,
} from "./serialization.js";
export { SessionLog } from "./session-log.js";
export { addUsage, emptyUsage, type ReportedTokens, responseUsage, type Usage } from "./usage.js";
