/** The PostgreSQL server the tests use: where it is, whether it answers, and cleaning up after a test. */
import pg from "pg";

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Whether the server answers. Under CI an unreachable server fails the suite (it must run there);
 * on a developer machine the suite is skipped with one line saying how to run it.
 */
export async function postgresReachable(suite: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch (error) {
    if (process.env.CI) throw new Error(`PostgreSQL at ${DATABASE_URL} is unreachable under CI: ${String(error)}`);
    console.warn(`${suite} skipped: no PostgreSQL at ${DATABASE_URL}; start one or set DATABASE_URL to run it`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
