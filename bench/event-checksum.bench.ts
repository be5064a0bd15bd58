/**
 * The cost of verifying checksums on read: a 10,000-event session (a typical tool result of a few
 * hundred bytes each), decoded with and without the checksum chain, and read end to end from
 * SQLite and PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test, in a
 * throwaway schema). Prints the median CPU time of 15 runs after 3 warm-ups, in ms (PostgreSQL:
 * the client's side only).
 * Run: npx tsx bench/event-checksum.bench.ts [events]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { SessionEvent } from "../src/session/events.js";
import { chainChecksums, decodeVerified, eventChecksum } from "../src/store/event-checksum.js";
import { decodeEvent, type EncodedEvent, encodeEvent } from "../src/store/event-encoding.js";
import { PostgresStore } from "../src/store/postgres-store.js";
import { SqliteStore } from "../src/store/sqlite-store.js";

const count = Number(process.argv[2] ?? 10_000);
const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const at = new Date().toISOString();
const payload = { text: "a typical tool result of a few hundred bytes ".repeat(6), tokens: 321, ok: true };
const events = Array.from(
  { length: count },
  (_, index) =>
    ({
      seq: index + 1,
      at,
      type: "tool_result",
      runId: "run-1",
      data: { ...payload, seq: index + 1 },
    }) as unknown as SessionEvent,
);

/** CPU time (user + system) of one run, in ms: steadier than wall time on a shared machine. */
async function median(run: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < 18; round++) {
    const started = process.cpuUsage();
    await run();
    const used = process.cpuUsage(started);
    if (round >= 3) times.push((used.user + used.system) / 1000);
  }
  times.sort((left, right) => left - right);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const rows = chainChecksums("", events.map(encodeEvent));
const window = { sessionId: "s", fromSeq: 1, limit: Number.MAX_SAFE_INTEGER, lastSeq: count, rows };
const site = { backend: "bench", operation: "read" };
const results: [string, number][] = [];
results.push([
  "checksums only (sha256 of each event, chained)",
  await median(() => {
    let previous = "";
    for (const row of rows) previous = eventChecksum(previous, row);
  }),
]);
results.push([
  "decode without checksums (JSON.parse per event)",
  await median(() => rows.map((row) => decodeEvent("s", row))),
]);
results.push(["decode with checksum chain (decodeVerified)", await median(() => decodeVerified(window, site))]);

const directory = mkdtempSync(join(tmpdir(), "nous-checksum-bench-"));
const sqlite = new SqliteStore({ path: join(directory, "bench.db") });
for (let seq = 1; seq <= count; seq += 1000) {
  await sqlite.append("s", events.slice(seq - 1, seq + 999), { expectedLastSeq: seq - 1 });
}
const raw = new Database(join(directory, "bench.db"), { readonly: true });
const plain = raw.prepare(
  "SELECT seq, at, type, run_id AS runId, data FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq",
);
results.push([
  "SQLite: the same rows, plain query + JSON.parse (no checks)",
  await median(() => (plain.all("s", 1) as EncodedEvent[]).map((row) => decodeEvent("s", row))),
]);
raw.close();
results.push(["SqliteStore.read of the whole session", await median(() => sqlite.read("s"))]);
results.push(["SqliteStore.verify of the session", await median(() => sqlite.verify("s"))]);
await sqlite.close();
rmSync(directory, { recursive: true, force: true });

const schema = `nous_checksum_bench_${process.pid}`;
const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
const reachable = await probe.connect().then(
  () => true,
  () => false,
);
await probe.end().catch(() => undefined);
if (reachable) {
  const store = await PostgresStore.connect(url, { schema });
  for (let seq = 1; seq <= count; seq += 1000) {
    await store.append("s", events.slice(seq - 1, seq + 999), { expectedLastSeq: seq - 1 });
  }
  results.push(["PostgresStore.read of the whole session", await median(() => store.read("s"))]);
  await store.close();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
  await admin.end();
}

console.log(`${count} events of ~${JSON.stringify(payload).length} bytes, median CPU time of 15 runs (ms):`);
for (const [name, ms] of results) console.log(`  ${name.padEnd(52)} ${ms.toFixed(2)}`);
