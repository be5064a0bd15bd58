/**
 * Session store append throughput and latency: one event per transaction vs group commit, for
 * SQLite (a file in a temp dir) and PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test,
 * in a throwaway schema). Every append is acknowledged only after its commit.
 * Run: npx tsx bench/store.bench.ts [events-per-writer]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { SessionEvent } from "../src/session/events.js";
import { PostgresStore } from "../src/store/postgres-store.js";
import type { SessionStore } from "../src/store/session-store.js";
import { SqliteStore } from "../src/store/sqlite-store.js";

const perWriter = Number(process.argv[2] ?? 200);
const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const at = new Date().toISOString();
const payload = { text: "a typical tool result of a few hundred bytes ".repeat(6), tokens: 321, ok: true };

interface Scenario {
  readonly backend: string;
  readonly durability: string;
  readonly mode: string;
  readonly writers: number;
  readonly open: () => Promise<SessionStore>;
}

interface Result {
  readonly events: number;
  readonly seconds: number;
  readonly latencies: number[];
}

/** `writers` sessions appending concurrently, each awaiting its previous append: one event per append. */
async function measure(store: SessionStore, writers: number, appends: number, prefix: string): Promise<Result> {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const sessionId = `${prefix}-${writer}`;
      for (let seq = 1; seq <= appends; seq++) {
        const event = { seq, at, type: "tool_result", data: { ...payload, seq } } as unknown as SessionEvent;
        const before = performance.now();
        await store.append(sessionId, [event], { expectedLastSeq: seq - 1 });
        latencies.push(performance.now() - before);
      }
    }),
  );
  return { events: writers * appends, seconds: (performance.now() - started) / 1000, latencies };
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const directory = mkdtempSync(join(tmpdir(), "nous-store-bench-"));
const schema = `nous_bench_${process.pid}`;
let files = 0;
const sqlite = (options: { synchronous: "full" | "normal"; groupCommit: boolean }) => async () =>
  new SqliteStore({ path: join(directory, `bench-${++files}.db`), ...options });
const postgres = (groupCommit: boolean) => async () => PostgresStore.connect(url, { schema, groupCommit });

const scenarios: Scenario[] = [];
for (const synchronous of ["full", "normal"] as const) {
  const durability = `synchronous=${synchronous.toUpperCase()}`;
  scenarios.push(
    {
      backend: "SQLite",
      durability,
      mode: "1 event/txn",
      writers: 1,
      open: sqlite({ synchronous, groupCommit: false }),
    },
    {
      backend: "SQLite",
      durability,
      mode: "1 event/txn",
      writers: 50,
      open: sqlite({ synchronous, groupCommit: false }),
    },
    {
      backend: "SQLite",
      durability,
      mode: "group commit",
      writers: 50,
      open: sqlite({ synchronous, groupCommit: true }),
    },
  );
}
const withPostgres = await postgresReachable();
if (withPostgres) {
  const durability = "synchronous_commit=on";
  scenarios.push(
    { backend: "PostgreSQL", durability, mode: "1 event/txn", writers: 1, open: postgres(false) },
    { backend: "PostgreSQL", durability, mode: "1 event/txn (pool 10)", writers: 50, open: postgres(false) },
    { backend: "PostgreSQL", durability, mode: "group commit", writers: 50, open: postgres(true) },
  );
}

console.log(`Session store appends on Node ${process.version}: ${perWriter} appends per writer, 1 event each\n`);
console.log("| backend | durability | mode | writers | events | events/s | p50 ms | p99 ms |");
console.log("|---|---|---|---:|---:|---:|---:|---:|");
try {
  for (const [index, scenario] of scenarios.entries()) {
    const store = await scenario.open();
    await measure(store, scenario.writers, 5, `warmup-${index}`);
    const result = await measure(store, scenario.writers, perWriter, `run-${index}`);
    await store.close();
    const sorted = [...result.latencies].sort((left, right) => left - right);
    const rate = Math.round(result.events / result.seconds).toLocaleString("en-US");
    console.log(
      `| ${scenario.backend} | ${scenario.durability} | ${scenario.mode} | ${scenario.writers} | ${result.events} | ${rate} | ${percentile(sorted, 0.5).toFixed(2)} | ${percentile(sorted, 0.99).toFixed(2)} |`,
    );
  }
  if (!withPostgres) console.log(`\nPostgreSQL skipped: no server at ${url}; start one or set DATABASE_URL`);
} finally {
  rmSync(directory, { recursive: true, force: true });
  if (withPostgres) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
