import { createHash } from "node:crypto";
import { DefinitionError } from "../errors/user-errors.js";

const maxLength = 64;

/** Throws unless `prefix` can start a provider-safe tool name. */
export function checkPrefix(prefix: string | undefined): void {
  if (prefix !== undefined && !/^[a-zA-Z0-9_-]{1,40}$/.test(prefix)) {
    throw new DefinitionError({
      message: `MCP tool prefix ${JSON.stringify(prefix)} must be 1-40 letters, digits, "_" or "-"`,
    });
  }
}

/**
 * Assigns provider-safe, unique names (`^[a-zA-Z0-9_-]{1,64}$`) to MCP tool names. A name once
 * assigned is kept for the life of the connection, so a refreshed list never renames a tool an
 * agent already holds.
 */
export class ToolNamer {
  readonly #prefix: string | undefined;
  readonly #byMcpName = new Map<string, string>();
  readonly #taken = new Set<string>();

  constructor(prefix: string | undefined) {
    checkPrefix(prefix);
    this.#prefix = prefix;
  }

  /** The Nous name for an MCP tool name. */
  nameFor(mcpName: string): string {
    const known = this.#byMcpName.get(mcpName);
    if (known !== undefined) return known;
    const safe = mcpName.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
    const candidate = this.#prefix === undefined ? safe : `${this.#prefix}_${safe}`;
    const name =
      candidate.length <= maxLength && !this.#taken.has(candidate) ? candidate : this.#withSuffix(candidate, mcpName);
    this.#byMcpName.set(mcpName, name);
    this.#taken.add(name);
    return name;
  }

  /** A shortened name ending in part of the original name's hash: stable for a given MCP name. */
  #withSuffix(candidate: string, mcpName: string): string {
    const digest = createHash("sha256").update(mcpName).digest("hex");
    for (let size = 8; size <= digest.length; size += 4) {
      const suffix = `_${digest.slice(0, size)}`;
      const name = `${candidate.slice(0, maxLength - suffix.length)}${suffix}`;
      if (!this.#taken.has(name)) return name;
    }
    throw new DefinitionError({ message: `Cannot find a unique tool name for MCP tool ${JSON.stringify(mcpName)}` });
  }
}
