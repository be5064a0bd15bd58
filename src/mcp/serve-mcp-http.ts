import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { getLogger } from "../logging/logger.js";
import { sdk } from "./sdk.js";

export interface ServeMcpHttpOptions {
  /** Default 0: a free port (read it from `url`). */
  readonly port?: number;
  /** Default "127.0.0.1": loopback only. Bind elsewhere only behind authentication. */
  readonly host?: string;
  /** Default "/mcp". */
  readonly path?: string;
  /** Host headers accepted (DNS-rebinding protection). Default: the loopback names with the port, or host:port. */
  readonly allowedHosts?: readonly string[];
}

/** A listening Streamable HTTP MCP server. */
export interface McpHttpServer {
  /** The endpoint clients connect to, e.g. `http://127.0.0.1:3001/mcp`. */
  readonly url: string;
  /** Ends every session and stops listening. */
  close(): Promise<void>;
}

/** Listens for Streamable HTTP clients; each session gets its own server from `createServer`. */
export async function serveHttp(createServer: () => Server, options: ServeMcpHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  const allowedHosts: string[] = [];

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== path) return reply(response, 404, "Not found");
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(response, 404, "Session not found");
      return session.transport.handleRequest(request, response);
    }
    if (request.method !== "POST") return reply(response, 400, "No session: start with an initialize request");
    const server = createServer();
    const transport: StreamableHTTPServerTransport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    server.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response);
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close();
  };

  const httpServer = createHttpServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      getLogger().error("MCP HTTP server: request failed", { error: String(error) });
      if (!response.headersSent) reply(response, 500, "Internal error");
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  allowedHosts.push(...(options.allowedHosts ?? defaultAllowedHosts(hostInUrl, port)));
  return {
    url: `http://${hostInUrl}:${port}${path}`,
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((session) => session.server.close()));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

function defaultAllowedHosts(host: string, port: number): string[] {
  const loopback = ["127.0.0.1", "localhost", "[::1]"];
  const names = loopback.includes(host) ? loopback : [host];
  return names.map((name) => `${name}:${port}`);
}

function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
