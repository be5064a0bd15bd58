/**
 * Approvals across processes: a child run pauses for approval; the test process (fresh store
 * connection on the same file) lists, decides and resumes. Then two processes resume one crashed
 * session at once (once its lease expired): exactly one proceeds, the other gets SessionConflictError.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ApprovalMismatchError,
  decideApproval,
  hashArgs,
  listPendingApprovals,
} from "../../src/approvals/approvals.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { runChild, seqProblems, tempDir, untilInterrupted } from "./harness.js";
import { approvalAgent, readEffects } from "./scenario.js";

const dir = tempDir("approval");
const path = join(dir, "sessions.db");
const store = new SqliteStore({ path });
afterAll(() => store.close());

describe("approval across processes", () => {
  it("pauses in one process; another lists, decides (edit, reject) and resumes; forged, replayed and args-modified decisions write nothing", async () => {
    const effects = join(dir, "approval.effects");
    const paused = await runChild({ args: ["approval", "sqlite", path, "pay", effects] });
    expect(paused.last).toBe("PENDING 2");
    const log = await store.read("pay");
    expect(log.at(-2)?.type).toBe("approval_requested");
    expect(log.at(-1)?.type).toBe("run_paused");

    const pending = (await listPendingApprovals(store)).filter((item) => item.sessionId === "pay");
    expect(pending.map((item) => item.toolCallId).sort()).toEqual(["a1", "a2"]);
    const a1 = pending.find((item) => item.toolCallId === "a1");
    const a2 = pending.find((item) => item.toolCallId === "a2");
    if (!a1 || !a2) throw new Error("missing approvals");
    expect(a1.argsHash).toBe(hashArgs({ to: "alice", amount: 100 }));

    const lastSeq = await store.lastSeq("pay");
    // Forged: a call that was never requested.
    await expect(decideApproval(store, { ...a1, toolCallId: "forged" }, { type: "approve" })).rejects.toBeInstanceOf(
      ApprovalMismatchError,
    );
    // Args modified: the decision names other arguments than were asked about.
    await expect(
      decideApproval(store, { ...a1, argsHash: hashArgs({ to: "alice", amount: 1_000_000 }) }, { type: "approve" }),
    ).rejects.toBeInstanceOf(ApprovalMismatchError);
    expect(await store.lastSeq("pay")).toBe(lastSeq);

    await decideApproval(store, a1, { type: "edit", args: { to: "alice", amount: 50 } });
    await decideApproval(store, a2, { type: "reject", reason: "not approved by finance" });
    // Replayed: already decided.
    const decided = await store.lastSeq("pay");
    await expect(decideApproval(store, a1, { type: "approve" })).rejects.toBeInstanceOf(ApprovalMismatchError);
    await expect(decideApproval(store, a2, { type: "approve" })).rejects.toBeInstanceOf(ApprovalMismatchError);
    expect(await store.lastSeq("pay")).toBe(decided);
    expect((await listPendingApprovals(store)).filter((item) => item.sessionId === "pay")).toEqual([]);

    // A fresh connection in this process re-binds the live deps and resumes.
    const fresh = new SqliteStore({ path });
    try {
      const { agent, model } = approvalAgent(effects);
      const result = await agent.resume("pay", { store: fresh, deps: { counter: 0 } });
      expect(result.output).toBe("transfers handled");
      // The edited args ran; the rejected call never ran and the model saw the rejection as its result.
      expect(readEffects(effects).map((line) => `${line.toolCallId} ${line.key}`)).toEqual(["a1 alice:50"]);
      const toolMessages = JSON.stringify(model.requests[0]?.messages.filter((message) => message.role === "tool"));
      expect(toolMessages).toContain("rejected");
      expect(toolMessages).toContain("not approved by finance");
      const after = await fresh.read("pay");
      expect(seqProblems(after)).toBeUndefined();
      expect(after.at(-1)?.type).toBe("run_completed");
    } finally {
      await fresh.close();
    }
    // Replaying after completion is still refused.
    await expect(decideApproval(store, a1, { type: "approve" })).rejects.toBeInstanceOf(ApprovalMismatchError);
    expect(store.integrityCheck().ok).toBe(true);
  });
});

describe("two processes resume the same session", () => {
  it("exactly one proceeds, the other gets SessionConflictError", async () => {
    const effects = join(dir, "race.effects");
    const crashed = await runChild({
      args: ["run", "sqlite", path, "race", effects, "4"],
      env: { NOUS_PAUSE_AT: "reserve:during:1", NOUS_LEASE_TTL_MS: "300" },
      kill: { atWindow: true },
    });
    expect(crashed.killed).toBe(true);
    // Resumable only once the killed run's lease has expired.
    await untilInterrupted(store, "race");
    const ready: ChildProcess[] = [];
    const onReady = (child: ChildProcess) => {
      ready.push(child);
      if (ready.length === 2) for (const each of ready) each.stdin?.write("GO\n");
    };
    const args = ["resume", "sqlite", path, "race", effects, "4", "reconcile"];
    const outcomes = await Promise.all([
      runChild({ args, env: { NOUS_WAIT_GO: "1" }, onReady }),
      runChild({ args, env: { NOUS_WAIT_GO: "1" }, onReady }),
    ]);
    const lasts = outcomes.map((outcome) => outcome.last ?? "");
    // The other is refused while the first holds the lease — or, if the machine delayed it past the
    // whole run, finds the run finished. Either way it runs nothing.
    expect(lasts.filter((last) => last === "DONE done after 4 turns")).toHaveLength(1);
    const other = lasts.find((last) => last !== "DONE done after 4 turns");
    expect(["CONFLICT lease_held", "FINISHED"]).toContain(other);
    const log = await store.read("race");
    expect(seqProblems(log)).toBeUndefined();
    expect(log.at(-1)?.type).toBe("run_completed");
    expect(log.filter((event) => event.type === "run_completed")).toHaveLength(1);
  });
});
