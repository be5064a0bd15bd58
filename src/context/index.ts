export {
  ContextUpdate,
  type DeepPartial,
  type DepsHolder,
  type DepsKey,
  type ListItem,
  type ListKey,
  type ObjectKey,
  type UpdatableContext,
  type UpdateSource,
} from "./context-update.js";
export { deepMerge } from "./deep-merge.js";
export type {
  AppendOperation,
  ContextOperation,
  DeleteOperation,
  DepsOperation,
  LogEventOperation,
  MergeOperation,
  SetOperation,
} from "./operations.js";
export { isPlainObject } from "./plain-object.js";
export { foldOperations } from "./reducer.js";
