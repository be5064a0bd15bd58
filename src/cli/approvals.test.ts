import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { FIXTURES, json, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

const cwd = temporaryDirectory();
const store = join(temporaryDirectory("nous-store-"), "sessions.db");
const cli = (...args: string[]) => runCli([...args, "--store", store], { cwd });
const agent = join(FIXTURES, "approval-agent.ts");

type Pending = { sessionId: string; toolCallId: string; toolName: string; args: unknown };

async function pendingOf(sessionId: string): Promise<Pending> {
  const all = json<Pending[]>(await cli("approvals", "list", "--json"));
  const found = all.find((item) => item.sessionId === sessionId);
  if (found === undefined) throw new Error(`no pending approval in ${sessionId}`);
  return found;
}

describe("nous approvals", () => {
  it("lists pending approvals; approve with edited args resumes the run to its answer", async () => {
    expect((await cli("approvals", "list")).stderr).toContain("No pending approvals.");
    expect((await cli("run", agent, "hello ann", "--session", "a1")).code).toBe(3);
    const pending = await pendingOf("a1");
    expect(pending).toMatchObject({ toolName: "send_email", args: { to: "ann@example.com", body: "hello ann" } });
    const text = await cli("approvals", "list");
    expect(text.stdout).toContain(`a1  ${pending.toolCallId}  send_email({"to":"ann@example.com","body":"hello ann"})`);

    const approved = await cli(
      "approvals",
      "approve",
      "a1",
      pending.toolCallId,
      "--args",
      '{"to":"bob@example.com","body":"edited"}',
      "--agent",
      agent,
    );
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe('Email outcome: {"sent":true,"to":"bob@example.com","body":"edited"}\n');
    expect(approved.stderr).toContain(
      `Approved with edited arguments: send_email (call ${pending.toolCallId}) in session a1`,
    );
    const summary = json<{ summary: { status: string } }>(await cli("sessions", "show", "a1", "--json")).summary;
    expect(summary.status).toBe("completed");

    const replayed = await cli("approvals", "approve", "a1", pending.toolCallId, "--agent", agent);
    expect(replayed.code).toBe(4);
    expect(replayed.stderr).toContain("No pending approval");
  });

  it("refuses edited arguments that fail the tool's schema (exit 2) and records nothing", async () => {
    expect((await cli("run", agent, "hi", "--session", "a-edit")).code).toBe(3);
    const pending = await pendingOf("a-edit");
    const before = json<{ summary: { eventCount: number } }>(await cli("sessions", "show", "a-edit", "--json"));
    const refused = await cli(
      "approvals",
      "approve",
      "a-edit",
      pending.toolCallId,
      "--args",
      '{"to":1}',
      "--agent",
      agent,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Invalid edited arguments for tool "send_email"');
    expect(refused.stderr).toContain("nothing was recorded");
    const after = json<{ summary: { eventCount: number } }>(await cli("sessions", "show", "a-edit", "--json"));
    expect(after.summary.eventCount).toBe(before.summary.eventCount);
    expect((await pendingOf("a-edit")).toolCallId).toBe(pending.toolCallId);
  });

  it("reject tells the model the reason; --json reports the resumed run", async () => {
    expect((await cli("run", agent, "spam", "--session", "a2")).code).toBe(3);
    const pending = await pendingOf("a2");
    const rejected = json(
      await cli("approvals", "reject", "a2", pending.toolCallId, "--reason", "not today", "--agent", agent, "--json"),
    );
    expect(rejected).toMatchObject({
      sessionId: "a2",
      status: "completed",
      verdict: "reject",
      resumed: true,
      output: 'Email outcome: "The user rejected this tool call: not today"',
    });
    // The decision and the resumed run replay offline.
    expect(json(await cli("sessions", "replay", "a2", agent, "--json"))).toMatchObject({ matches: true });
  });

  it("lists a sub-agent's request with the way to it from the root; approving it resumes the root, then the child", async () => {
    const lead = ["--export", "delegator"];
    const paused = await cli("run", agent, "hi team", "--session", "lead", ...lead);
    expect(paused.code).toBe(3);
    expect(paused.stderr).toMatch(/nous approvals approve lead\/lead_\w+ mail_\w+/);
    const all = json<(Pending & { path?: { sessionId: string; toolCallId: string }[] })[]>(
      await cli("approvals", "list", "--json"),
    );
    const pending = all.find((item) => item.sessionId.startsWith("lead/"));
    if (pending === undefined) throw new Error("no pending approval in the child session");
    const [rootStep, childStep] = pending.path ?? [];
    expect(rootStep?.sessionId).toBe("lead");
    expect(childStep).toEqual({ sessionId: pending.sessionId, toolCallId: pending.toolCallId });
    expect((await cli("approvals", "list")).stdout).toContain(`via lead › ${rootStep?.toolCallId}`);

    const approved = await cli(
      "approvals",
      "approve",
      pending.sessionId,
      pending.toolCallId,
      "--agent",
      agent,
      ...lead,
    );
    expect(approved.code).toBe(0);
    expect(approved.stderr).toContain("Resuming session lead with");
    expect(approved.stdout).toBe('Lead: Email outcome: {"sent":true,"to":"ann@example.com","body":"hi team"}\n');
    for (const session of ["lead", pending.sessionId]) {
      const shown = json<{ summary: { status: string } }>(await cli("sessions", "show", session, "--json"));
      expect(shown.summary.status, session).toBe("completed");
    }
    // Replay applies the child's recorded decision in the child's session: no difference.
    const replayed = await cli("sessions", "replay", "lead", agent, ...lead, "--json");
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
    expect(json(replayed)).toMatchObject({ matches: true });
  });

  it("--no-resume only records the decision; bad input exits 2, unknown sessions 4", async () => {
    expect((await cli("run", agent, "later", "--session", "a3")).code).toBe(3);
    const pending = await pendingOf("a3");
    const recorded = json(await cli("approvals", "approve", "a3", pending.toolCallId, "--no-resume", "--json"));
    expect(recorded).toMatchObject({ sessionId: "a3", verdict: "approve", resumed: false, pending: 0 });
    // Decided, not resumed: the run is unfinished and no process holds it.
    expect(json<{ summary: { status: string } }>(await cli("sessions", "show", "a3", "--json")).summary.status).toBe(
      "interrupted",
    );

    const results = await Promise.all([
      cli("approvals", "approve", "a3"),
      cli("approvals", "approve", "nope", "call"),
      cli("approvals", "reject", "a3", "x", "--args", "{}"),
      cli("approvals", "approve", "a3", "x", "--args", "{bad"),
      cli("approvals", "frob"),
    ]);
    expect(results.map((result) => result.code)).toEqual([2, 4, 2, 2, 2]);
    expect(results[3]?.stderr).toContain("--args is not valid JSON");
  });

  it("approve without the agent file of a session run by a custom agent is refused (exit 2) and leaves the session unchanged", async () => {
    expect((await cli("run", agent, "hello", "--session", "a-none")).code).toBe(3);
    const pending = await pendingOf("a-none");
    const before = await cli("sessions", "show", "a-none", "--json");
    for (const verdict of [["approve"], ["reject", "--reason", "no"]]) {
      const [sub, ...rest] = verdict as [string, ...string[]];
      const refused = await cli("approvals", sub, "a-none", pending.toolCallId, ...rest);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('Session "a-none" was run by agent "mailer"');
      expect(refused.stderr).toContain("not by the built-in assistant: pass --agent FILE");
      expect(refused.stderr).toContain("Nothing was recorded.");
    }
    expect((await cli("sessions", "show", "a-none", "--json")).stdout).toBe(before.stdout);
    expect((await pendingOf("a-none")).toolCallId).toBe(pending.toolCallId);
  });

  it("approve with a different agent file is refused with the mismatch (exit 2) and leaves the session unchanged", async () => {
    expect((await cli("run", agent, "hello", "--session", "a-other")).code).toBe(3);
    const pending = await pendingOf("a-other");
    const before = await cli("sessions", "show", "a-other", "--json");
    const other = join(FIXTURES, "charge-agent.ts");
    const refused = await cli("approvals", "approve", "a-other", pending.toolCallId, "--agent", other);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /Session "a-other" was run by agent "mailer" \(definition [0-9a-f]{12}\), not by agent "charger" \(definition [0-9a-f]{12}\) from ".*charge-agent\.ts"/,
    );
    expect((await cli("sessions", "show", "a-other", "--json")).stdout).toBe(before.stdout);
    // With the agent that ran it, the same decision goes through.
    const approved = await cli("approvals", "approve", "a-other", pending.toolCallId, "--agent", agent);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('"sent":true');
  });
});
