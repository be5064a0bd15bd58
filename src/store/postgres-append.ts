import type { ClientBase, QueryResult } from "pg";
import { SessionConflictError } from "../errors/store-errors.js";
import { CHAIN_START, chainChecksums, type StoredEvent } from "./event-checksum.js";
import type { BatchOutcome } from "./group-commit.js";
import { fenceProblem } from "./lease-rules.js";
import { type LeaseRowColumns, lockedLeases, lockLeasesSql } from "./postgres-lease.js";
import { applyLifecycle, type PreparedAppend } from "./prepared-append.js";
import {
  INITIAL_LIFECYCLE,
  type LifecycleState,
  lifecycleFromColumns,
  searchTextOf,
  statusOf,
} from "./session-status.js";

/** The qualified table names of one store's schema. */
export interface PostgresTables {
  readonly sessions: string;
  readonly events: string;
  readonly leases: string;
}

interface SessionRow {
  readonly session_id: string;
  readonly last_seq: number;
  readonly run_status: string;
  readonly agent: string | null;
  readonly model: string | null;
  readonly pending_approvals: string;
}

interface SessionState {
  lastSeq: number;
  /** The checksum of the event at `lastSeq`, the seed of the next event's. */
  lastChecksum: string;
  lifecycle: LifecycleState;
  dirty: boolean;
}

/** SQLSTATEs after which a batch is retried item by item: unique violation, deadlock, serialization failure. */
export const RETRYABLE_CODES = new Set(["23505", "40P01", "40001"]);

/**
 * Example: `const outcomes = await commitAppendBatch(client, tables, [prepared], Date.now());`
 *
 * Commits a batch of appends in one transaction on `client`: locks the sessions' rows (in id order,
 * so concurrent batches cannot deadlock on them) and share-locks their leases, checks each append's
 * fence against its session's lease (by the server's clock) and its `expectedLastSeq` against
 * the state the earlier appends of the batch left, and writes every accepted event and summary in
 * one statement. A conflicting append fails alone. A session created concurrently by another
 * process shows up as a unique violation of `(session_id, seq)`, which aborts the transaction; the
 * caller then retries the items one by one.
 */
export async function commitAppendBatch(
  client: ClientBase,
  tables: PostgresTables,
  items: readonly PreparedAppend[],
  nowMs: number,
): Promise<BatchOutcome[]> {
  const ids = [...new Set(items.map((item) => item.sessionId))].sort(compareBytes);
  // One round trip opens the transaction, locks the sessions' rows, then share-locks their leases
  // and reads their chain seeds (the checksum of each last event) in statements that start once the
  // row locks are held, so no append can have committed past them. A message of several
  // statements takes no parameters: the ids are inlined as escaped literals.
  const idArray = `ARRAY[${ids.map((id) => client.escapeLiteral(id)).join(", ")}]::text[]`;
  try {
    const results = (await client.query(
      `BEGIN;
       SELECT session_id, last_seq, run_status, agent, model, pending_approvals FROM ${tables.sessions}
         WHERE session_id = ANY(${idArray}) ORDER BY session_id FOR UPDATE;
       ${lockLeasesSql(tables.leases, idArray)};
       SELECT s.session_id, e.checksum FROM ${tables.sessions} s
         JOIN ${tables.events} e ON e.session_id = s.session_id AND e.seq = s.last_seq
         WHERE s.session_id = ANY(${idArray})`,
    )) as unknown as QueryResult[];
    const rows = (results[1] as QueryResult<SessionRow>).rows;
    const leases = lockedLeases((results[2] as QueryResult<LeaseRowColumns>).rows);
    const seeds = (results[3] as QueryResult<{ session_id: string; checksum: string }>).rows;
    const checksums = new Map(seeds.map((row) => [row.session_id, row.checksum]));
    const states = new Map<string, SessionState>();
    for (const row of rows) {
      const lifecycle = lifecycleFromColumns({
        runStatus: row.run_status,
        agent: row.agent,
        model: row.model,
        pendingApprovals: row.pending_approvals,
      });
      const lastChecksum = checksums.get(row.session_id) ?? CHAIN_START;
      states.set(row.session_id, { lastSeq: row.last_seq, lastChecksum, lifecycle, dirty: false });
    }
    const events: { sessionId: string; event: StoredEvent }[] = [];
    const outcomes = items.map((item): BatchOutcome => {
      const leaseProblem = fenceProblem(item.sessionId, leases.rows.get(item.sessionId), item.fence, leases.nowMs);
      if (leaseProblem !== undefined) return leaseProblem;
      const state = states.get(item.sessionId) ?? {
        lastSeq: 0,
        lastChecksum: CHAIN_START,
        lifecycle: INITIAL_LIFECYCLE,
        dirty: false,
      };
      if (state.lastSeq !== item.expectedLastSeq) {
        return new SessionConflictError({
          sessionId: item.sessionId,
          expectedLastSeq: item.expectedLastSeq,
          actualLastSeq: state.lastSeq,
        });
      }
      if (item.events.length === 0) return undefined;
      state.lastSeq += item.events.length;
      state.lifecycle = applyLifecycle(state.lifecycle, item);
      state.dirty = true;
      states.set(item.sessionId, state);
      for (const event of chainChecksums(state.lastChecksum, item.events)) {
        events.push({ sessionId: item.sessionId, event });
        state.lastChecksum = event.checksum;
      }
      return undefined;
    });
    if (events.length > 0) await writeBatch(client, tables, states, events, nowMs);
    await client.query("COMMIT");
    return outcomes;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

async function writeBatch(
  client: ClientBase,
  tables: PostgresTables,
  states: Map<string, SessionState>,
  events: { sessionId: string; event: StoredEvent }[],
  nowMs: number,
): Promise<void> {
  const dirty = [...states].filter(([, state]) => state.dirty).sort(([left], [right]) => compareBytes(left, right));
  events.sort((left, right) => compareBytes(left.sessionId, right.sessionId) || left.event.seq - right.event.seq);
  const now = new Date(nowMs).toISOString();
  await client.query(writeSql(tables), [
    now,
    dirty.map(([id]) => id),
    dirty.map(([, state]) => state.lastSeq),
    dirty.map(([, state]) => statusOf(state.lifecycle)),
    dirty.map(([, state]) => state.lifecycle.runStatus),
    dirty.map(([, state]) => state.lifecycle.agent),
    dirty.map(([, state]) => state.lifecycle.model),
    dirty.map(([, state]) => JSON.stringify(state.lifecycle.pendingApprovals)),
    dirty.map(([id, state]) => searchTextOf(id, state.lifecycle)),
    events.map(({ sessionId }) => sessionId),
    events.map(({ event }) => event.seq),
    events.map(({ event }) => event.at),
    events.map(({ event }) => event.type),
    events.map(({ event }) => event.runId),
    events.map(({ event }) => event.data),
    events.map(({ event }) => event.checksum),
  ]);
}

/** The statement writing a batch's summaries and events in one round trip (see `writeBatch`). */
function writeSql(tables: PostgresTables): string {
  return `WITH summaries AS (
       INSERT INTO ${tables.sessions} AS s
         (session_id, created_at, updated_at, last_seq, status, run_status, agent, model, pending_approvals, search_text)
       SELECT id, $1::timestamptz, $1::timestamptz, last_seq, status, run_status, agent, model, pending, search
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
         AS u(id, last_seq, status, run_status, agent, model, pending, search)
       ON CONFLICT (session_id) DO UPDATE SET
         updated_at = EXCLUDED.updated_at, last_seq = EXCLUDED.last_seq, status = EXCLUDED.status,
         run_status = EXCLUDED.run_status, agent = EXCLUDED.agent, model = EXCLUDED.model,
         pending_approvals = EXCLUDED.pending_approvals, search_text = EXCLUDED.search_text
       RETURNING 1
     )
     INSERT INTO ${tables.events} (session_id, seq, at, type, run_id, data, checksum)
     SELECT id, seq, at, type, run_id, data::json, checksum
     FROM unnest($10::text[], $11::int[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
       AS e(id, seq, at, type, run_id, data, checksum)`;
}

/** Orders strings by UTF-8 bytes, as the "C" collation does. */
function compareBytes(left: string, right: string): number {
  return Buffer.compare(Buffer.from(left, "utf8"), Buffer.from(right, "utf8"));
}
