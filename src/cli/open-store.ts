import type { SessionStore } from "../index.js";
import { UsageError } from "./cli-support.js";

/** The store used when neither `--store` nor NOUS_STORE is given. */
export const DEFAULT_STORE_PATH = ".nous/sessions.db";

/** Where the session store is: the `--store` value, else NOUS_STORE, else `.nous/sessions.db`. */
export function storeLocation(option: string | undefined): string {
  return option || process.env.NOUS_STORE || DEFAULT_STORE_PATH;
}

/** A printable form of a store location, with any password hidden. */
export function describeStore(location: string): string {
  if (!/^postgres(ql)?:\/\//.test(location)) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://…";
  }
}

/**
 * Opens a session store: a SQLite file path (created with its directory when missing), or a
 * `postgres://` / `postgresql://` URL (an optional `?schema=name` picks the schema, default "nous").
 * Any other `scheme://` location is refused rather than taken as a file path.
 */
export async function openStore(location: string): Promise<SessionStore> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    let schema: string | undefined;
    let connection = location;
    try {
      const url = new URL(location);
      schema = url.searchParams.get("schema") ?? undefined;
      url.searchParams.delete("schema");
      connection = url.toString();
    } catch {
      throw new UsageError(`--store: "${describeStore(location)}" is not a valid PostgreSQL URL`);
    }
    // Without pg, importing nous/postgres throws OptionalPeerMissingError naming the install command.
    const { PostgresStore } = await import("../postgres.js");
    return PostgresStore.connect(connection, schema === undefined ? {} : { schema });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1];
  if (scheme !== undefined) {
    throw new UsageError(`--store: unknown store scheme "${scheme}://" (use a SQLite file path or a postgres:// URL)`);
  }
  // The driver is the runtime's SQLite, or better-sqlite3; when there is none, SqliteDriverMissingError
  // names the command that installs it.
  const { SqliteStore } = await import("../sqlite.js");
  return new SqliteStore({ path: location });
}
