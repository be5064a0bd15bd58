import { NousError } from "../errors/nous-error.js";

/**
 * An MCP server could not be reached, failed to start, or the connection is closed. Raised by
 * `connectMcp` and by `tools()`; inside a run, a call on a closed connection is a tool error the
 * model sees instead.
 */
export class McpConnectionError extends NousError {
  readonly code = "mcp_connection";
  readonly fault = "provider" as const;
  /** The connection's name (`name` option, else the server's own name). */
  readonly server: string;

  constructor(fields: { server: string; message: string; cause?: unknown }) {
    super({ message: `MCP server "${fields.server}": ${fields.message}`, cause: fields.cause });
    this.server = fields.server;
  }
}

/**
 * An MCP tool answered with `isError: true`, or the call failed at the protocol level. Thrown
 * from a tool's `execute`, so the run records it as a tool error and the model sees the message.
 */
export class McpToolError extends NousError {
  readonly code = "mcp_tool_error";
  readonly fault = "tool" as const;
  /** The tool's name on the server (before any prefix or renaming). */
  readonly mcpToolName: string;
  /** The JSON-RPC error code for protocol errors; absent for an `isError` result. */
  readonly rpcCode: number | undefined;

  constructor(fields: { mcpToolName: string; message: string; rpcCode?: number; cause?: unknown }) {
    super({ message: fields.message, cause: fields.cause });
    this.mcpToolName = fields.mcpToolName;
    this.rpcCode = fields.rpcCode;
  }
}
