/**
 * The MCP SDK (`@modelcontextprotocol/sdk`, an optional peer), loaded when `nous/mcp` loads: without
 * the package, importing `nous/mcp` fails with one `OptionalPeerMissingError` naming the install
 * command instead of Node's ERR_MODULE_NOT_FOUND. The rest of src/mcp imports the SDK's types only.
 */
import type * as ClientModule from "@modelcontextprotocol/sdk/client/index.js";
import type * as StdioClientModule from "@modelcontextprotocol/sdk/client/stdio.js";
import type * as HttpClientModule from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type * as ServerModule from "@modelcontextprotocol/sdk/server/index.js";
import type * as StdioServerModule from "@modelcontextprotocol/sdk/server/stdio.js";
import type * as HttpServerModule from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type * as Types from "@modelcontextprotocol/sdk/types.js";
import { loadPeers } from "../peers/optional-peers.js";

/** What Nous uses of the MCP SDK. */
export interface McpSdk {
  readonly Client: typeof ClientModule.Client;
  readonly StdioClientTransport: typeof StdioClientModule.StdioClientTransport;
  readonly StreamableHTTPClientTransport: typeof HttpClientModule.StreamableHTTPClientTransport;
  readonly Server: typeof ServerModule.Server;
  readonly StdioServerTransport: typeof StdioServerModule.StdioServerTransport;
  readonly StreamableHTTPServerTransport: typeof HttpServerModule.StreamableHTTPServerTransport;
  readonly ErrorCode: typeof Types.ErrorCode;
  readonly McpError: typeof Types.McpError;
  readonly ToolListChangedNotificationSchema: typeof Types.ToolListChangedNotificationSchema;
  readonly CallToolRequestSchema: typeof Types.CallToolRequestSchema;
  readonly ListToolsRequestSchema: typeof Types.ListToolsRequestSchema;
}

export const sdk: McpSdk = await loadPeers("nous/mcp", async () => {
  const [client, stdioClient, httpClient, server, stdioServer, httpServer, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdioClient.StdioClientTransport,
    StreamableHTTPClientTransport: httpClient.StreamableHTTPClientTransport,
    Server: server.Server,
    StdioServerTransport: stdioServer.StdioServerTransport,
    StreamableHTTPServerTransport: httpServer.StreamableHTTPServerTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
  };
});
