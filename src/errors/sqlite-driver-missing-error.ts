import { UserError } from "./nous-error.js";

/** Why one SQLite driver cannot be used in this process. */
export interface SqliteDriverProblem {
  readonly driver: "node:sqlite" | "bun:sqlite" | "better-sqlite3";
  /** In words: "node:sqlite needs Node.js 22.13 or later (this is Node.js 20.19.0)". */
  readonly reason: string;
  /** For better-sqlite3: whether installing the package or rebuilding it would fix it. */
  readonly fix?: "install" | "rebuild";
}

/**
 * No SQLite driver can run in this process: not `node:sqlite` (Node.js 22.13 and later), not
 * `bun:sqlite` (Bun), and the `better-sqlite3` peer package is not installed (or was built for
 * another Node.js version). `installCommand` is the one command that fixes it, e.g.
 * `npm install better-sqlite3`. Also thrown when `SqliteStore`'s `driver` option names a driver this
 * runtime lacks.
 *
 * @example
 * try { new SqliteStore() } catch (error) {
 *   if (error instanceof SqliteDriverMissingError) console.error(error.installCommand); // npm install better-sqlite3
 * }
 */
export class SqliteDriverMissingError extends UserError {
  readonly code = "sqlite_driver_missing";
  /** The runtime it ran on: "Node.js 20.19.0", "Bun 1.2.3". */
  readonly runtime: string;
  /** The driver the `driver` option asked for, if one did. */
  readonly requested: SqliteDriverProblem["driver"] | undefined;
  /** Each driver tried, and why it could not be used. */
  readonly problems: readonly SqliteDriverProblem[];
  /** `npm install better-sqlite3`, or `npm rebuild better-sqlite3` when it is installed but built for another Node.js. */
  readonly installCommand: string;

  constructor(fields: {
    runtime: string;
    requested?: SqliteDriverProblem["driver"] | undefined;
    problems: readonly SqliteDriverProblem[];
  }) {
    const rebuild = fields.problems.some((problem) => problem.fix === "rebuild");
    const installCommand = rebuild ? "npm rebuild better-sqlite3" : "npm install better-sqlite3";
    const reasons = fields.problems.map((problem) => problem.reason).join("; ");
    const opening =
      fields.requested === undefined
        ? `No SQLite driver is available on ${fields.runtime}: ${reasons}.`
        : `The SQLite driver "${fields.requested}" (the driver option) is not available on ${fields.runtime}: ${reasons}.`;
    const advice =
      fields.requested === undefined || fields.requested === "better-sqlite3"
        ? ` Run: ${installCommand} (or use Node.js 22.13 or later, or Bun, which have SQLite built in)`
        : ` Leave the driver option unset to use the one this runtime has (on Node.js 20: ${installCommand})`;
    super({ message: `${opening}${advice}` });
    this.runtime = fields.runtime;
    this.requested = fields.requested;
    this.problems = fields.problems;
    this.installCommand = installCommand;
  }
}
