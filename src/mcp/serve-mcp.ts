import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Agent } from "../agent/agent.js";
import { DefinitionError } from "../errors/user-errors.js";
import type { JsonSchema } from "../models/model.js";
import { type AnyTool, tool } from "../tools/tool.js";
import { sdk } from "./sdk.js";
import { type McpHttpServer, type ServeMcpHttpOptions, serveHttp } from "./serve-mcp-http.js";
import { type ServeApproval, ServedTools } from "./serve-tools.js";

export interface ServeMcpOptions<D extends object = Record<string, unknown>> {
  /** The server's name and version, as MCP clients show them. */
  readonly name: string;
  readonly version: string;
  /** Tools to serve; their input schemas are exported to JSON Schema and must be objects. */
  readonly tools?: readonly AnyTool<D>[];
  /** An agent to serve as one tool that runs it on a prompt and answers with its output. */
  // biome-ignore lint/suspicious/noExplicitAny: any output type is served (as text or structured content)
  readonly agent?: Agent<D, any>;
  /** The agent tool's name and description (default: the agent's name, else `run_agent`). */
  readonly agentTool?: { readonly name?: string; readonly description?: string };
  /** Deps for the served tools and the agent's runs. Tools' deps updates fold into them for later calls. */
  readonly deps?: D;
  /** Told to the client at initialization, for its model. */
  readonly instructions?: string;
  /** Decides calls to served tools that need approval; without it those calls fail. */
  readonly approve?: ServeApproval;
}

/** A Nous agent or toolset as an MCP server, ready to be connected to transports. */
export interface NousMcpServer {
  /** A new SDK server (one per client session) with the tools' handlers installed. */
  createServer(): Server;
  /** Serves one client over this process's stdin and stdout. */
  stdio(): Promise<{ close(): Promise<void> }>;
  /** Serves clients over Streamable HTTP (each with its own session). */
  http(options?: ServeMcpHttpOptions): Promise<McpHttpServer>;
}

/**
 * Exposes a Nous agent (as a tool that runs it on a prompt) and/or Nous tools as an MCP server.
 *
 * @example
 * const server = serveMcp({ name: "todos", version: "1.0.0", tools: [addTodo] });
 * const { url, close } = await server.http({ port: 3001 }); // http://127.0.0.1:3001/mcp
 */
export function serveMcp<D extends object = Record<string, unknown>>(options: ServeMcpOptions<D>): NousMcpServer {
  const tools = [...(options.tools ?? [])];
  if (options.agent !== undefined) tools.push(agentTool(options.agent, options));
  if (tools.length === 0) throw new DefinitionError({ message: "serveMcp needs an agent or at least one tool" });
  const served = new ServedTools(tools, options.deps ?? ({} as D), options.approve);
  const createServer = () => {
    const server = new sdk.Server(
      { name: options.name, version: options.version },
      {
        capabilities: { tools: { listChanged: false } },
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      },
    );
    server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: served.list() }));
    server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra) => {
      if (!served.has(request.params.name)) {
        throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `Unknown tool "${request.params.name}"`);
      }
      return served.call(request.params.name, request.params.arguments, extra.signal, String(extra.requestId));
    });
    return server;
  };
  return {
    createServer,
    stdio: async () => {
      const server = createServer();
      await server.connect(new sdk.StdioServerTransport());
      return { close: () => server.close() };
    },
    http: (httpOptions = {}) => serveHttp(createServer, httpOptions),
  };
}

/** Serves an agent or tools over this process's stdin and stdout (for a client that spawns it). */
export function serveMcpStdio<D extends object = Record<string, unknown>>(
  options: ServeMcpOptions<D>,
): Promise<{ close(): Promise<void> }> {
  return serveMcp(options).stdio();
}

/**
 * Serves an agent or tools over Streamable HTTP at `http://host:port/mcp` (host 127.0.0.1 unless
 * given; port 0 picks a free one). Resolves once listening.
 */
export function serveMcpHttp<D extends object = Record<string, unknown>>(
  options: ServeMcpOptions<D> & ServeMcpHttpOptions,
): Promise<McpHttpServer> {
  return serveMcp(options).http(options);
}

/** Connects a new server for one session to any SDK transport (for custom hosting). */
export async function connectServer(server: NousMcpServer, transport: Transport): Promise<Server> {
  const created = server.createServer();
  await created.connect(transport);
  return created;
}

const promptSchema: JsonSchema = {
  type: "object",
  properties: { prompt: { type: "string", description: "What to ask the agent" } },
  required: ["prompt"],
  additionalProperties: false,
};

// biome-ignore lint/suspicious/noExplicitAny: any output type is served
function agentTool<D extends object>(agent: Agent<D, any>, options: ServeMcpOptions<D>): AnyTool<D> {
  const name = options.agentTool?.name ?? safeName(agent.name) ?? "run_agent";
  return tool<JsonSchema, unknown, D>({
    name,
    description:
      options.agentTool?.description ?? `Ask the ${agent.name ?? "agent"} agent: it runs on the prompt and answers.`,
    input: promptSchema,
    execute: async (args, context) => {
      const { prompt } = args as { prompt: string };
      const run = agent.run as (
        prompt: string,
        options: { deps: D; signal: AbortSignal },
      ) => Promise<{ output: unknown }>;
      const result = await run.call(agent, prompt, { deps: context.deps, signal: context.signal });
      return result.output;
    },
  });
}

function safeName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const safe = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return safe.length > 0 ? safe : undefined;
}
