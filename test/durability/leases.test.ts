/**
 * One writer per session, across real processes, on SQLite and PostgreSQL:
 * - two live processes: A is slow inside a tool (alive, not crashed), B resumes the session. B is
 *   refused with SessionConflictError and does nothing, whatever its in-doubt resolver; A finishes.
 *   Exactly one execution of the call.
 * - a process whose event loop stalls while another process takes its expired lease over can never
 *   append again: its next commit is refused, nothing is written, its run fails with LeaseLostError.
 * - `nous sessions list` shows a killed run's session as interrupted once its lease has expired.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { runCli } from "../../src/cli/fixtures/cli-process.js";
import { LeaseLostError } from "../../src/errors/lease-errors.js";
import { ScriptedModel } from "../../src/models/scripted-model.js";
import { PostgresStore } from "../../src/store/postgres-store.js";
import type { SessionStore } from "../../src/store/session-store.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { tool } from "../../src/tools/tool.js";
import {
  countByCall,
  DATABASE_URL,
  dropSchema,
  postgresReachable,
  runChild,
  runChildSync,
  seqProblems,
  startChild,
  tempDir,
  untilInterrupted,
} from "./harness.js";
import { readEffects } from "./scenario.js";

/** Heartbeats every 200 ms: a process starved of CPU for less than 400 ms keeps its lease. */
const TTL = 600;
const TURNS = 4;
const dir = tempDir("leases");
const schema = `nous_leases_${process.pid}_${Date.now()}`;
const pgReachable = await postgresReachable();

interface Backend {
  readonly name: "sqlite" | "pg";
  /** The crash child's location argument: a file, or a schema. */
  readonly location: string;
  /** The CLI's --store value. */
  readonly cliStore: string;
  readonly open: () => Promise<SessionStore>;
}

const backends: Backend[] = [
  {
    name: "sqlite",
    location: join(dir, "sessions.db"),
    cliStore: join(dir, "sessions.db"),
    open: async () => new SqliteStore({ path: join(dir, "sessions.db") }),
  },
  ...(pgReachable
    ? [
        {
          name: "pg" as const,
          location: schema,
          cliStore: `${DATABASE_URL}${DATABASE_URL.includes("?") ? "&" : "?"}schema=${schema}`,
          open: () => PostgresStore.connect(DATABASE_URL, { schema }),
        },
      ]
    : []),
];
afterAll(async () => {
  if (pgReachable) await dropSchema(schema);
});

const elapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(backends)("one writer per session ($name)", (backend) => {
  let store: SessionStore;
  const opened = async () => {
    store ??= await backend.open();
    return store;
  };
  afterAll(async () => {
    await store?.close();
  });

  describe.each([
    ["charge", "none"],
    ["charge", "rerun"],
    ["charge", "result"],
    ["reserve", "none"],
  ] as const)("A is slow inside %s while B resumes with resolver %s", (toolName, policy) => {
    it("B is refused with SessionConflictError and does nothing; A finishes; the call runs exactly once", async () => {
      const store = await opened();
      const sessionId = `two-${toolName}-${policy}`;
      const effects = join(dir, `${backend.name}-${sessionId}.effects`);
      const id = `t1_${toolName}`;
      const a = startChild({
        args: ["run", backend.name, backend.location, sessionId, effects, String(TURNS)],
        env: { NOUS_PAUSE_AT: `${toolName}:during:1`, NOUS_PAUSE_UNTIL_GO: "1", NOUS_LEASE_TTL_MS: String(TTL) },
      });
      try {
        await a.waitForLine("AT during");
        // A stays inside the tool for two ttls: only its heartbeat keeps the session.
        await elapse(TTL * 2);
        const before = await store.read(sessionId);
        const b = await runChild({
          args: ["resume", backend.name, backend.location, sessionId, effects, String(TURNS), policy],
          env: { NOUS_LEASE_TTL_MS: String(TTL) },
        });
        expect(b.last).toBe("CONFLICT lease_held");
        expect(b.lines.filter((line) => line.startsWith("DECIDE"))).toEqual([]);
        expect(await store.read(sessionId)).toEqual(before);
        expect(readEffects(effects).filter((line) => line.toolCallId === id)).toEqual([]);
        expect((await store.get(sessionId))?.status).toBe("running");
        a.send("GO");
        expect((await a.exit).last).toBe(`DONE done after ${TURNS} turns`);
      } finally {
        a.kill();
      }
      expect(readEffects(effects).filter((line) => line.toolCallId === id && line.kind === "EFFECT")).toHaveLength(1);
      const log = await store.read(sessionId);
      expect(seqProblems(log)).toBeUndefined();
      expect(log.at(-1)?.type).toBe("run_completed");
      for (const [call, count] of countByCall(log, "tool_result")) expect(count, call).toBe(1);
      expect((await store.get(sessionId))?.status).toBe("completed");
    });
  });

  it("a process whose lease was taken over while it stalled cannot append: its run fails with LeaseLostError", async () => {
    const store = await opened();
    const sessionId = "stalled";
    let atTakeover = -1;
    let intruderToken = "";
    const slow = tool({
      name: "slow",
      description: "x",
      input: z.object({}),
      execute: async () => {
        atTakeover = await store.lastSeq(sessionId);
        // Blocks this process (no heartbeat runs) until another process has taken the expired lease.
        intruderToken = runChildSync(["takeover", backend.name, backend.location, sessionId]).at(-1) ?? "";
        return "done slowly";
      },
    });
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "s1", name: "slow" }] }, { text: "unreachable" }]),
      tools: [slow],
      lease: { ttlMs: TTL },
    });
    const error = await agent.run("go", { sessionId, store }).catch((caught: unknown) => caught);
    expect(intruderToken).toMatch(/^TOKEN \d+$/);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ code: "lease_lost", sessionId });
    expect(await store.lastSeq(sessionId)).toBe(atTakeover);
    const log = await store.read(sessionId);
    expect(log.some((event) => event.type === "tool_result" || event.type === "run_failed")).toBe(false);
    await expect(store.acquireLease(sessionId, { owner: "third", ttlMs: 60_000 })).rejects.toMatchObject({
      reason: "lease_held",
      heldBy: "intruder",
    });
  });

  it("nous sessions list shows a killed run's session as interrupted once its lease has expired", async () => {
    const store = await opened();
    const sessionId = "killed";
    const list = async (...extra: string[]) => {
      const result = await runCli(["sessions", "list", "--store", backend.cliStore, ...extra], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    const a = startChild({
      args: ["run", backend.name, backend.location, sessionId, join(dir, `${backend.name}-killed.effects`), "4"],
      env: { NOUS_PAUSE_AT: "charge:during:1", NOUS_LEASE_TTL_MS: String(TTL) },
    });
    try {
      await a.waitForLine("AT during");
      await elapse(TTL * 2);
      expect(await list()).toMatch(/^killed\s+running\s/m);
    } finally {
      a.kill();
    }
    expect((await a.exit).killed).toBe(true);
    await untilInterrupted(store, sessionId);
    expect(await list()).toMatch(/^killed\s+interrupted\s/m);
    const json = JSON.parse(await list("--status", "interrupted", "--json")) as { sessions: { sessionId: string }[] };
    expect(json.sessions.map((session) => session.sessionId)).toContain(sessionId);
  });
});
