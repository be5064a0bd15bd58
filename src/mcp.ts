/**
 * MCP (Model Context Protocol) for Nous: use a server's tools in an agent, or serve an agent or
 * tools to any MCP client. `import { connectMcp, serveMcp } from "nous/mcp"`; the core package
 * never loads the MCP SDK.
 */
export {
  type ConnectMcpOptions,
  connectMcp,
  McpConnection,
  type McpHttpTransport,
  type McpStdioTransport,
  type ToolsChangedEvent,
} from "./mcp/connect-mcp.js";
export { definitionHash, type HashedDefinition } from "./mcp/definition-hash.js";
export { type BinaryContent, type McpContentPart, mapCallToolResult } from "./mcp/map-result.js";
export { McpConnectionError, McpToolError } from "./mcp/mcp-errors.js";
export type { McpApprovalPolicy, McpTool, McpToolInfo } from "./mcp/mcp-tool.js";
export {
  connectServer,
  type NousMcpServer,
  type ServeMcpOptions,
  serveMcp,
  serveMcpHttp,
  serveMcpStdio,
} from "./mcp/serve-mcp.js";
export type { McpHttpServer, ServeMcpHttpOptions } from "./mcp/serve-mcp-http.js";
export { type ServeApproval, toCallToolResult } from "./mcp/serve-tools.js";
export { scrubbedEnvironment } from "./mcp/stdio-environment.js";
