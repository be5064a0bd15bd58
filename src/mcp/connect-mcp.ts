import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { getLogger } from "../logging/logger.js";
import { definitionHash } from "./definition-hash.js";
import type { BinaryContent } from "./map-result.js";
import { mapCallToolResult } from "./map-result.js";
import { McpConnectionError, McpToolError } from "./mcp-errors.js";
import { buildMcpTool, type McpApprovalPolicy, type McpTool, type McpToolHost } from "./mcp-tool.js";
import { sdk } from "./sdk.js";
import { scrubbedEnvironment } from "./stdio-environment.js";
import { ToolNamer } from "./tool-names.js";

/** A local server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioTransport {
  readonly type: "stdio";
  readonly command: string;
  readonly args?: readonly string[];
  /** Variables given to the server, on top of the scrubbed environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Names of parent variables the server may also see (besides PATH and HOME). */
  readonly allowEnv?: readonly string[];
  readonly cwd?: string;
  /** Where the server's stderr goes (default: the parent's stderr). */
  readonly stderr?: "inherit" | "ignore";
}

/** A remote server spoken to over Streamable HTTP. */
export interface McpHttpTransport {
  readonly type: "http";
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ConnectMcpOptions {
  readonly transport: McpStdioTransport | McpHttpTransport;
  /** Names the server in errors and in each tool's `mcp.server` (default: the server's own name). */
  readonly name?: string;
  /** Put before every tool name (`fs` → `fs_read_file`) to keep several servers' tools apart. */
  readonly prefix?: string;
  /** Per tool call: fails after this long without a response or a progress notification. Default 60 s. */
  readonly timeoutMs?: number;
  /** For starting the connection and each `tools/list` read. Default 60 s. */
  readonly connectTimeoutMs?: number;
  /** Which calls need approval (default `false`). See `McpApprovalPolicy`. */
  readonly needsApproval?: McpApprovalPolicy;
  /**
   * Approved definition hashes by MCP tool name, read and written by the `"on-change"` policy.
   * Pass a map you persist to keep approvals across processes (default: a new map).
   */
  readonly approvedDefinitions?: Map<string, string>;
  /**
   * Images, audio and blobs: described by type and size (default), or also sent to the model as
   * image, audio and file content parts of the tool result (`"include"`; see `toolContent`).
   */
  readonly binaryContent?: BinaryContent;
  /** Called whenever the server's tool list changed and was re-read (also registrable with `on`). */
  readonly onToolsChanged?: (event: ToolsChangedEvent) => void;
}

/** The tool list was re-read after the server announced a change. Names are Nous tool names. */
export interface ToolsChangedEvent {
  readonly tools: readonly McpTool[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Tools whose definition hash differs from before (with `"on-change"`, they need approval again). */
  readonly changed: readonly string[];
}

interface Listed {
  readonly definition: SdkTool;
  readonly hash: string;
  readonly tool: McpTool;
}

const defaultTimeoutMs = 60_000;

/**
 * Connects to an MCP server and offers its tools as Nous tools.
 *
 * @example
 * const fs = await connectMcp({
 *   transport: { type: "stdio", command: "npx", args: ["@modelcontextprotocol/server-filesystem", root] },
 *   prefix: "fs",
 * });
 * const agent = new Agent({ model, tools: await fs.tools() });
 * // …
 * await fs.close();
 */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpConnection> {
  const label = options.name ?? describe(options.transport);
  const client = new sdk.Client({ name: "nous", version: "0.1.0" }, { capabilities: {} });
  const connection = new McpConnection(client, options);
  const transport = createTransport(options.transport);
  try {
    await client.connect(transport, { timeout: options.connectTimeoutMs ?? defaultTimeoutMs });
    await connection.refresh();
  } catch (cause) {
    await connection.close().catch(() => {});
    if (cause instanceof McpConnectionError) throw cause;
    throw new McpConnectionError({ server: label, message: `could not connect: ${messageOf(cause)}`, cause });
  }
  return connection;
}

/** A live connection to one MCP server. Close it when done (or use `await using`). */
export class McpConnection {
  readonly #client: Client;
  readonly #options: ConnectMcpOptions;
  readonly #namer: ToolNamer;
  readonly #approved: Map<string, string>;
  readonly #listeners = new Set<(event: ToolsChangedEvent) => void>();
  #listed = new Map<string, Listed>();
  #refreshing: Promise<readonly McpTool[]> | undefined;
  #stale = false;
  #loaded = false;
  #closed = false;

  /** @internal Use `connectMcp`. */
  constructor(client: Client, options: ConnectMcpOptions) {
    this.#client = client;
    this.#options = options;
    this.#namer = new ToolNamer(options.prefix);
    this.#approved = options.approvedDefinitions ?? new Map();
    if (options.onToolsChanged) this.#listeners.add(options.onToolsChanged);
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      this.refresh().catch((error: unknown) =>
        getLogger().warn(`MCP server "${this.name}": could not re-read its tools`, { error: messageOf(error) }),
      );
    });
    client.onclose = () => {
      this.#closed = true;
    };
  }

  /** The `name` option, else the name the server gave, else its command or URL. */
  get name(): string {
    return this.#options.name ?? this.#client.getServerVersion()?.name ?? describe(this.#options.transport);
  }

  /** What the server said about itself when the connection opened. */
  get serverInfo(): { name: string; version: string } | undefined {
    return this.#client.getServerVersion();
  }

  /** The server's instructions for the model, if it gave any. */
  get instructions(): string | undefined {
    return this.#client.getInstructions();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The SDK client underneath, for what Nous does not wrap (resources, prompts, …). */
  get client(): Client {
    return this.#client;
  }

  /**
   * The server's tools as Nous tools, as last listed (the list is re-read when the server
   * announces a change). Each tool's `inputSchema` is the server's schema object, unchanged.
   */
  async tools<D extends object = Record<string, unknown>>(): Promise<McpTool<D>[]> {
    const current = this.#refreshing ? await this.#refreshing : [...this.#listed.values()].map((item) => item.tool);
    return current as unknown as McpTool<D>[];
  }

  /** Re-reads the tool list now. Concurrent calls share one read (and one more if a change arrived meanwhile). */
  refresh(): Promise<readonly McpTool[]> {
    if (this.#refreshing) {
      this.#stale = true;
      return this.#refreshing;
    }
    const run = async () => {
      let tools: readonly McpTool[];
      do {
        this.#stale = false;
        tools = await this.#load();
      } while (this.#stale);
      return tools;
    };
    this.#refreshing = run().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Registers a listener; returns a function that removes it. */
  on(event: "tools-changed", listener: (event: ToolsChangedEvent) => void): () => void {
    if (event !== "tools-changed") throw new TypeError(`Unknown MCP connection event ${JSON.stringify(event)}`);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Ends the session (HTTP) or stops the server process (stdio). Safe to call twice. */
  async close(): Promise<void> {
    const transport = this.#client.transport;
    this.#closed = true;
    if (transport instanceof sdk.StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      await transport.terminateSession().catch(() => {});
    }
    await this.#client.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #load(): Promise<readonly McpTool[]> {
    if (this.#closed) throw new McpConnectionError({ server: this.name, message: "the connection is closed" });
    if (this.#client.getServerCapabilities()?.tools === undefined) return [];
    const definitions: SdkTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.#options.connectTimeoutMs ?? defaultTimeoutMs,
      });
      definitions.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    // Names that are already provider-safe claim their own name before any renamed one can.
    const ordered = [...definitions].sort((left, right) => Number(!isSafe(left.name)) - Number(!isSafe(right.name)));
    const host = this.#host();
    const policy = this.#options.needsApproval ?? false;
    const previous = this.#listed;
    const next = new Map<string, Listed>();
    for (const definition of ordered) {
      const hash = definitionHash(definition);
      const known = previous.get(definition.name);
      const tool =
        known !== undefined && known.hash === hash
          ? known.tool
          : buildMcpTool(host, this.#namer.nameFor(definition.name), definition, hash, policy);
      next.set(definition.name, { definition, hash, tool });
    }
    const inOrder = new Map(definitions.map((definition) => [definition.name, next.get(definition.name) as Listed]));
    this.#listed = inOrder;
    const tools = [...inOrder.values()].map((item) => item.tool);
    if (this.#loaded) this.#emit(previous, inOrder, tools);
    this.#loaded = true;
    return tools;
  }

  #emit(previous: Map<string, Listed>, next: Map<string, Listed>, tools: readonly McpTool[]): void {
    const added = [...next.keys()].filter((name) => !previous.has(name));
    const removed = [...previous.keys()].filter((name) => !next.has(name));
    const changed = [...next.keys()].filter(
      (name) => previous.has(name) && previous.get(name)?.hash !== next.get(name)?.hash,
    );
    if (added.length + removed.length + changed.length === 0) return;
    const nousName = (map: Map<string, Listed>) => (name: string) => map.get(name)?.tool.name ?? name;
    const event: ToolsChangedEvent = {
      tools,
      added: added.map(nousName(next)),
      removed: removed.map(nousName(previous)),
      changed: changed.map(nousName(next)),
    };
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        getLogger().warn(`MCP server "${this.name}": a tools-changed listener threw`, { error: messageOf(error) });
      }
    }
  }

  #callOptions(signal: AbortSignal) {
    return {
      timeout: this.#options.timeoutMs ?? defaultTimeoutMs,
      resetTimeoutOnProgress: true,
      onprogress: () => {},
      signal,
    };
  }

  #host(): McpToolHost {
    return {
      serverName: this.name,
      liveHash: async (mcpName) => {
        await this.#refreshing?.catch(() => {});
        return this.#listed.get(mcpName)?.hash;
      },
      approvedHash: (mcpName) => this.#approved.get(mcpName),
      approve: (mcpName, hash) => this.#approved.set(mcpName, hash),
      call: (mcpName, args, signal) => this.#call(mcpName, args, signal),
    };
  }

  async #call(mcpName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    if (this.#closed) {
      throw new McpToolError({ mcpToolName: mcpName, message: `MCP server "${this.name}": the connection is closed` });
    }
    let result: Awaited<ReturnType<Client["callTool"]>>;
    try {
      result = await this.#client.callTool({ name: mcpName, arguments: args }, undefined, this.#callOptions(signal));
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      throw toToolError(mcpName, error, this.#options.timeoutMs ?? defaultTimeoutMs);
    }
    if (!("content" in result)) {
      return (result as { toolResult?: unknown }).toolResult;
    }
    return mapCallToolResult(mcpName, result as Parameters<typeof mapCallToolResult>[1], this.#options.binaryContent);
  }
}

function toToolError(mcpName: string, error: unknown, timeoutMs: number): McpToolError {
  if (error instanceof sdk.McpError) {
    const message =
      error.code === sdk.ErrorCode.RequestTimeout
        ? `MCP tool "${mcpName}" timed out after ${timeoutMs} ms without a response or progress`
        : error.message;
    return new McpToolError({ mcpToolName: mcpName, message, rpcCode: error.code, cause: error });
  }
  return new McpToolError({ mcpToolName: mcpName, message: messageOf(error), cause: error });
}

function createTransport(options: McpStdioTransport | McpHttpTransport): Transport {
  if (options.type === "http") {
    const headers = options.headers === undefined ? undefined : { ...options.headers };
    return new sdk.StreamableHTTPClientTransport(new URL(options.url), headers ? { requestInit: { headers } } : {});
  }
  return new sdk.StdioClientTransport({
    command: options.command,
    args: [...(options.args ?? [])],
    env: scrubbedEnvironment(options.allowEnv, options.env),
    stderr: options.stderr ?? "inherit",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
}

function describe(transport: McpStdioTransport | McpHttpTransport): string {
  return transport.type === "http" ? String(transport.url) : transport.command;
}

function isSafe(name: string): boolean {
  return /^[a-zA-Z0-9_-]{1,64}$/.test(name);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
