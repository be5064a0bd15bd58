import { UserError } from "./nous-error.js";

/**
 * An optional part of Nous was loaded but the package(s) it needs are not installed in the user's
 * project: `nous/mcp` needs `@modelcontextprotocol/sdk`, `nous/code-mode` needs QuickJS,
 * `nous/inspector` needs `hono` and `@hono/node-server`, `nous/postgres` needs `pg`. `installCommand`
 * is the one command that fixes it. (The SQLite store's driver has its own error,
 * `SqliteDriverMissingError`, since most runtimes need no package for it.)
 *
 * @example
 * try { await import("nous/mcp") } catch (error) {
 *   if (error instanceof OptionalPeerMissingError) console.error(error.installCommand); // npm install @modelcontextprotocol/sdk@1
 * }
 */
export class OptionalPeerMissingError extends UserError {
  readonly code = "optional_peer_missing";
  /** The entry point that needs the packages: "nous/mcp". */
  readonly entry: string;
  /** The packages the entry needs (every one of them, installed or not), as npm names. */
  readonly packages: readonly string[];
  /** The packages that could not be loaded. */
  readonly missing: readonly string[];
  /** `npm install <package>@<major> …`: installs every package the entry needs, at the major version Nous supports. */
  readonly installCommand: string;

  constructor(fields: {
    entry: string;
    packages: readonly { name: string; spec: string }[];
    missing: readonly string[];
    cause?: unknown;
  }) {
    const installCommand = `npm install ${fields.packages.map((item) => item.spec).join(" ")}`;
    super({
      message: `${fields.entry} needs ${fields.missing.join(" and ")}, which ${fields.missing.length === 1 ? "is" : "are"} not installed. Run: ${installCommand}`,
      cause: fields.cause,
    });
    this.entry = fields.entry;
    this.packages = fields.packages.map((item) => item.name);
    this.missing = [...fields.missing];
    this.installCommand = installCommand;
  }
}
