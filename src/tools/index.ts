export { type AgentTool, functionToolsOf, providerToolsOf } from "./agent-tools.js";
export {
  type CompiledSchema,
  compileSchema,
  type InferSchema,
  type SchemaInput,
  type ValidationResult,
} from "./schema.js";
export {
  type AnyTool,
  checkToolName,
  indexTools,
  type NeedsApproval,
  type Tool,
  type ToolConfig,
  type ToolReturn,
  tool,
  toToolDefinition,
} from "./tool.js";
export { isToolContent, type ToolContent, toolContent } from "./tool-content.js";
