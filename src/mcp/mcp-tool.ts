import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { DefinitionError } from "../errors/user-errors.js";
import type { JsonSchema } from "../models/model.js";
import type { RunContext } from "../session/run-context.js";
import { type AnyTool, tool } from "../tools/tool.js";

/** When calls to a server's tools need approval (through the agent's `approvalHandler` or a pending approval). */
export type McpApprovalPolicy =
  | boolean
  /**
   * Approval is needed the first time a tool is called and again whenever its definition (name,
   * description, schemas, annotations) differs from the one last approved: a server cannot change
   * what an approved tool does, or tells the model, without a human seeing it again.
   */
  | "on-change";

/** What Nous knows about the MCP side of a tool. */
export interface McpToolInfo {
  /** The connection's name. */
  readonly server: string;
  /** The tool's name on the server. */
  readonly name: string;
  /** SHA-256 of the definition this tool object was built from (see `definitionHash`). */
  readonly definitionHash: string;
  /** The server's definition as listed, untouched. Annotations are hints from the server, not guarantees. */
  readonly definition: SdkTool;
}

/** A Nous tool backed by an MCP server's tool. */
export type McpTool<D extends object = Record<string, unknown>> = AnyTool<D> & { readonly mcp: McpToolInfo };

/** What an MCP tool needs from its connection at call time. */
export interface McpToolHost {
  readonly serverName: string;
  /**
   * The hash of the tool's definition as the server lists it now (after any re-read a change
   * notification started); undefined once the tool is gone.
   */
  liveHash(mcpName: string): Promise<string | undefined>;
  /** The hash last approved for this tool. */
  approvedHash(mcpName: string): string | undefined;
  approve(mcpName: string, hash: string): void;
  call(mcpName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/**
 * Builds the Nous tool for an MCP tool. Its `inputSchema` is the server's JSON Schema object
 * itself, unchanged. Arguments are validated against it before a call where the schema compiles;
 * a schema the validator cannot compile is passed through and the server validates.
 */
export function buildMcpTool<D extends object>(
  host: McpToolHost,
  nousName: string,
  definition: SdkTool,
  hash: string,
  policy: McpApprovalPolicy,
): McpTool<D> {
  const mcpName = definition.name;
  const description = definition.description ?? definition.title ?? definition.annotations?.title ?? "";
  const needsApproval =
    policy === "on-change"
      ? async () => {
          const live = await host.liveHash(mcpName);
          return live === undefined || host.approvedHash(mcpName) !== live;
        }
      : policy;
  const config = {
    name: nousName,
    description,
    input: definition.inputSchema as JsonSchema,
    needsApproval,
    execute: async (args: unknown, context: RunContext<D>) => {
      const live = await host.liveHash(mcpName);
      if (live === undefined) {
        throw new Error(`MCP server "${host.serverName}" no longer offers the tool "${mcpName}"`);
      }
      if (policy === "on-change") host.approve(mcpName, live);
      const argumentsObject = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
      return host.call(mcpName, argumentsObject, context.signal);
    },
  };
  let built: AnyTool<D>;
  try {
    built = tool<JsonSchema, unknown, D>(config);
  } catch (error) {
    if (!(error instanceof DefinitionError) || !error.message.includes("invalid JSON Schema")) throw error;
    const permissive = tool<JsonSchema, unknown, D>({ ...config, input: {} });
    built = {
      ...permissive,
      inputSchema: config.input,
      schema: { jsonSchema: config.input, validate: (value: unknown) => ({ ok: true, value }) },
    };
  }
  return Object.freeze({
    ...built,
    mcp: Object.freeze({ server: host.serverName, name: mcpName, definitionHash: hash, definition }),
  });
}
