/**
 * `nous/postgres`: the PostgreSQL session store and its migrations. A separate entry point so that
 * `import … from "nous"` never loads pg (an optional peer dependency).
 *
 * @example
 * import { PostgresStore } from "nous/postgres";
 * const store = await PostgresStore.connect(process.env.DATABASE_URL!, { schema: "nous" });
 */
export { migratePostgres, POSTGRES_MIGRATIONS, type PostgresMigration } from "./store/postgres-migrations.js";
export { PostgresStore, type PostgresStoreOptions } from "./store/postgres-store.js";
