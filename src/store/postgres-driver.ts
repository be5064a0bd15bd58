/**
 * The `pg` package (an optional peer), loaded when `nous/postgres` loads: without it, importing
 * `nous/postgres` fails with one `OptionalPeerMissingError` naming the install command instead of
 * Node's ERR_MODULE_NOT_FOUND. The rest of the PostgreSQL store imports pg's types only.
 */
import type Pg from "pg";
import { loadPeers } from "../peers/optional-peers.js";

export const pg: typeof Pg = await loadPeers("nous/postgres", async () => (await import("pg")).default);
