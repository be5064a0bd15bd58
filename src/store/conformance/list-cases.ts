import { StoreArgumentError } from "../../errors/store-errors.js";
import type { SessionSummary } from "../session-store.js";
import { type ConformanceContext, event, nextMillisecond } from "./conformance-context.js";
import { expect } from "./expect.js";
import { describe, it } from "./registry.js";

/** Status derivation, listing order, filters and cursors. */
export function defineListCases({ store }: ConformanceContext): void {
  const appendTo = async (sessionId: string, types: [string, unknown][]) => {
    const last = await store().lastSeq(sessionId);
    const batch = types.map(([type, data], index) => event(last + index + 1, type, data));
    await store().append(sessionId, batch, { expectedLastSeq: last });
  };
  const statusOf = async (sessionId: string) => (await store().get(sessionId))?.status;

  describe("status derivation", () => {
    it("follows the lifecycle events across appends", async () => {
      await appendTo("s", [["user_message", { content: "hi" }]]);
      expect(await statusOf("s")).toBe("idle");
      await appendTo("s", [["run_started", { runId: "r1", agent: "todo", model: "test:one" }]]);
      // Running, but no run holds the session's lease: interrupted.
      expect(await store().get("s")).toMatchObject({ status: "interrupted", agent: "todo", model: "test:one" });
      await appendTo("s", [["approval_requested", { toolCallId: "c1", toolName: "pay", args: {} }]]);
      await appendTo("s", [["approval_requested", { toolCallId: "c2", toolName: "pay", args: {} }]]);
      expect(await statusOf("s")).toBe("awaiting_approval");
      await appendTo("s", [["approval_decided", { toolCallId: "c1", approved: true }]]);
      expect(await statusOf("s")).toBe("awaiting_approval");
      await appendTo("s", [["approval_decided", { toolCallId: "c2", approved: false }]]);
      expect(await statusOf("s")).toBe("interrupted");
      await appendTo("s", [["run_completed", { runId: "r1" }]]);
      expect(await statusOf("s")).toBe("completed");
      await appendTo("s", [
        ["run_started", { runId: "r2", agent: "billing" }],
        ["run_failed", { runId: "r2", error: { code: "x", message: "boom" } }],
      ]);
      expect(await store().get("s")).toMatchObject({ status: "failed", agent: "billing", model: "test:one" });
    });

    it("reports a run paused on a sub-agent's approval as awaiting approval until it resumes, and lists it by that status", async () => {
      await appendTo("root", [
        ["run_started", { runId: "r1", agent: "lead" }],
        ["subagent_paused", { toolCallId: "c1", childSessionId: "root/c1", childRunId: "k1", agent: "payer" }],
      ]);
      expect(await statusOf("root")).toBe("awaiting_approval");
      expect((await store().list({ status: "awaiting_approval" })).sessions.map((item) => item.sessionId)).toEqual([
        "root",
      ]);
      // It survives an append of anything else (the summary is rebuilt from stored columns).
      await appendTo("root", [["note", {}]]);
      expect(await statusOf("root")).toBe("awaiting_approval");
      await appendTo("root", [["run_resumed", { runId: "r1" }]]);
      expect(await statusOf("root")).toBe("interrupted");
      await appendTo("root", [["run_completed", { runId: "r1" }]]);
      expect(await statusOf("root")).toBe("completed");
    });

    it("ignores a decision for an approval that was never requested", async () => {
      await appendTo("s", [
        ["run_started", { runId: "r1" }],
        ["approval_decided", { toolCallId: "other", approved: true }],
        ["approval_requested", { toolCallId: "c1", toolName: "pay", args: {} }],
      ]);
      expect(await statusOf("s")).toBe("awaiting_approval");
    });
  });

  describe("list", () => {
    it("orders newest-updated first and moves an updated session to the front", async () => {
      for (const id of ["a", "b", "c"]) {
        await appendTo(id, [["note", {}]]);
        await nextMillisecond();
      }
      expect(await ids()).toEqual(["c", "b", "a"]);
      await appendTo("a", [["note", {}]]);
      expect(await ids()).toEqual(["a", "c", "b"]);
      const [summary] = (await store().list({ limit: 1 })).sessions;
      expect(summary).toMatchObject({ sessionId: "a", eventCount: 2, lastSeq: 2, status: "idle" });
      expect(Date.parse(summary?.updatedAt ?? "")).toBeGreaterThan(Date.parse(summary?.createdAt ?? ""));
    });

    it("pages through 25 sessions 10 at a time, seeing each exactly once, in order", async () => {
      await Promise.all(
        Array.from({ length: 25 }, (_, index) => appendTo(`page-${String(index).padStart(2, "0")}`, [["note", {}]])),
      );
      const seen = await pageAll({ limit: 10 });
      expect(seen.pages).toEqual([10, 10, 5]);
      expect(new Set(seen.ids).size).toBe(25);
      expect([...seen.ids].sort()).toEqual(Array.from({ length: 25 }, (_, i) => `page-${String(i).padStart(2, "0")}`));
      expectListOrder(seen.summaries);
    });

    it("filters by status, agent, search and update time, combined with cursors", async () => {
      await appendTo("run-1", [["run_started", { runId: "r", agent: "support", model: "openai:gpt" }]]);
      await appendTo("done-1", [
        ["run_started", { runId: "r", agent: "support" }],
        ["run_completed", { runId: "r" }],
      ]);
      await appendTo("fail-1", [
        ["run_started", { runId: "r", agent: "billing", model: "Anthropic:Claude" }],
        ["run_failed", { runId: "r", error: { code: "x", message: "y" } }],
      ]);
      await appendTo("wait-1", [
        ["run_started", { runId: "r", agent: "billing" }],
        ["approval_requested", { toolCallId: "c", toolName: "t", args: {} }],
      ]);
      await appendTo("idle-1", [["user_message", { content: "hi" }]]);
      expect(await ids({ status: "interrupted" })).toEqual(["run-1"]);
      expect(await ids({ status: "running" })).toEqual([]);
      expect(await ids({ status: "awaiting_approval" })).toEqual(["wait-1"]);
      expect((await ids({ status: ["completed", "failed"] })).sort()).toEqual(["done-1", "fail-1"]);
      expect(await ids({ status: "idle" })).toEqual(["idle-1"]);
      expect((await ids({ agent: "billing" })).sort()).toEqual(["fail-1", "wait-1"]);
      expect(await ids({ agent: "billing", status: "failed" })).toEqual(["fail-1"]);
      expect(await ids({ search: "CLAUDE" })).toEqual(["fail-1"]);
      expect((await ids({ search: "SUPP" })).sort()).toEqual(["done-1", "run-1"]);
      expect(await ids({ search: "wait" })).toEqual(["wait-1"]);
      expect(await ids({ search: "no such thing" })).toEqual([]);
      const paged = await pageAll({ agent: "support", limit: 1 });
      expect(paged.ids.sort()).toEqual(["done-1", "run-1"]);
      expect(paged.pages).toEqual([1, 1]);

      await nextMillisecond();
      const cut = new Date();
      await nextMillisecond();
      await appendTo("later", [["note", {}]]);
      expect(await ids({ updatedAfter: cut })).toEqual(["later"]);
      expect(await ids({ updatedAfter: cut.toISOString(), search: "idle" })).toEqual([]);
      expect((await ids({ updatedBefore: cut })).sort()).toEqual(["done-1", "fail-1", "idle-1", "run-1", "wait-1"]);
    });

    it("searches a literal substring of the id: a sub-agent's parent path finds its children ('/', '%' and '_' are plain characters)", async () => {
      for (const id of ["team", "team/r1", "team/r1/n1", "Team/X", "teams/a", "te%m/y", "te_m/z", "tea/m"]) {
        await appendTo(id, [["note", {}]]);
      }
      expect((await ids({ search: "team/" })).sort()).toEqual(["Team/X", "team/r1", "team/r1/n1"]);
      expect(await ids({ search: "te%m/" })).toEqual(["te%m/y"]);
      expect(await ids({ search: "te_m/" })).toEqual(["te_m/z"]);
    });

    it("returns no cursor when everything fits, and rejects bad cursors and limits", async () => {
      await appendTo("only", [["note", {}]]);
      const page = await store().list({ limit: 1 });
      expect(page.sessions).toHaveLength(1);
      expect(page.nextCursor).toBeUndefined();
      expect(await store().list({ status: [] })).toEqual({ sessions: [] });
      await expect(store().list({ cursor: "garbage!" })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store().list({ limit: 0 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store().list({ updatedAfter: "not a date" })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store().list({ status: "sleeping" as never })).rejects.toBeInstanceOf(StoreArgumentError);
    });
  });

  async function ids(filter: Parameters<ReturnType<typeof store>["list"]>[0] = {}): Promise<string[]> {
    return (await store().list(filter)).sessions.map((summary) => summary.sessionId);
  }

  async function pageAll(filter: { limit: number; agent?: string }) {
    const summaries: SessionSummary[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await store().list({ ...filter, ...(cursor === undefined ? {} : { cursor }) });
      summaries.push(...page.sessions);
      pages.push(page.sessions.length);
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 100);
    return { summaries, pages, ids: summaries.map((summary) => summary.sessionId) };
  }
}

function expectListOrder(summaries: readonly SessionSummary[]): void {
  for (let index = 1; index < summaries.length; index++) {
    const previous = summaries[index - 1] as SessionSummary;
    const current = summaries[index] as SessionSummary;
    const newer = Date.parse(previous.updatedAt) - Date.parse(current.updatedAt);
    expect(newer > 0 || (newer === 0 && previous.sessionId > current.sessionId)).toBe(true);
  }
}
