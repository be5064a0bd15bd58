import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { deserializeLog } from "../index.js";
import { FIXTURES, json, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

const cwd = temporaryDirectory();
const store = join(temporaryDirectory("nous-store-"), "sessions.db");
const cli = (...args: string[]) => runCli([...args, "--store", store], { cwd });

type Summary = { sessionId: string; status: string; agent?: string; eventCount: number; lastSeq: number };

beforeAll(async () => {
  // Two built-in assistant turns on s1, a mailer session waiting for approval, a slow-agent session.
  expect((await cli("run", "first", "--session", "s1", "--model", "test")).code).toBe(0);
  expect((await cli("run", "second", "--session", "s1", "--model", "test")).code).toBe(0);
  expect((await cli("run", join(FIXTURES, "approval-agent.ts"), "hi", "--session", "mail-1")).code).toBe(3);
  expect((await cli("run", join(FIXTURES, "slow-agent.ts"), "hello", "--session", "slow-1")).code).toBe(0);
}, 120_000);

describe("nous sessions list", () => {
  it("lists newest first as a table and as JSON, with status, agent and search filters and a cursor", async () => {
    const table = await cli("sessions", "list");
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SESSION\s+STATUS\s+AGENT\s+MODEL\s+EVENTS\s+TOKENS\s+COST\s+UPDATED$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(["slow-1", "mail-1", "s1"]);
    expect(table.stdout).toMatch(/mail-1\s+awaiting_approval\s+mailer\s+function:mailer/);

    const all = json<{ sessions: Summary[] }>(await cli("sessions", "list", "--json"));
    expect(all.sessions.map((session) => session.sessionId)).toEqual(["slow-1", "mail-1", "s1"]);
    const waiting = json<{ sessions: Summary[] }>(
      await cli("sessions", "list", "--status", "awaiting_approval", "--json"),
    );
    expect(waiting.sessions.map((session) => session.sessionId)).toEqual(["mail-1"]);
    const byAgent = json<{ sessions: Summary[] }>(await cli("sessions", "list", "--agent", "nous-assistant", "--json"));
    expect(byAgent.sessions.map((session) => session.sessionId)).toEqual(["s1"]);
    const searched = json<{ sessions: Summary[] }>(await cli("sessions", "list", "--search", "SLOW", "--json"));
    expect(searched.sessions.map((session) => session.sessionId)).toEqual(["slow-1"]);

    const page1 = json<{ sessions: Summary[]; nextCursor?: string }>(
      await cli("sessions", "list", "--limit", "2", "--json"),
    );
    expect(page1.sessions).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = json<{ sessions: Summary[]; nextCursor?: string }>(
      await cli("sessions", "list", "--limit", "2", "--cursor", page1.nextCursor as string, "--json"),
    );
    expect(page2.sessions.map((session) => session.sessionId)).toEqual(["s1"]);
    expect(page2.nextCursor).toBeUndefined();
    const more = await cli("sessions", "list", "--limit", "2");
    expect(more.stderr).toContain(`--cursor ${page1.nextCursor}`);

    const bad = await cli("sessions", "list", "--status", "sleeping");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"sleeping" is not one of');
  });
});

describe("bounded session ids", () => {
  it("refuses a session id over 256 characters or with control characters (exit 2), echoing none of it", async () => {
    const long = "x".repeat(100_000);
    for (const args of [
      ["sessions", "show", long],
      ["sessions", "delete", "a\u001b]0;title\u0007"],
      ["run", "hi", "--session", long],
      ["approvals", "approve", long, "call"],
    ]) {
      const result = await cli(...args);
      expect(result.code, args[0]).toBe(2);
      expect(result.stderr).toMatch(/the session id (is 100000 characters long|must not contain control)/);
      expect(result.stderr.length).toBeLessThan(400);
    }
    const listed = await cli("sessions", "list", "--json");
    expect(listed.stdout).not.toContain("xxxxxxxxxx");
  });
});

describe("nous sessions show", () => {
  it("prints the timeline with surface and bookkeeping events told apart, usage and rebuilt state", async () => {
    const shown = await cli("sessions", "show", "s1");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Session s1 · completed · \d+ events/);
    expect(shown.stdout).toMatch(/#\s+1 \S+\s+bookkeeping\s+run_started\s+run [0-9a-f-]+ · nous-assistant/);
    expect(shown.stdout).toMatch(/#\s+2 \S+ ▌ surface\s+user_message\s+first/);
    expect(shown.stdout).toMatch(/▌ surface\s+assistant_message\s+→ current_time\(\{\}\) → calculate/);
    expect(shown.stdout).toMatch(/bookkeeping\s+context_update\s+add_note: append notes/);
    expect(shown.stdout).toMatch(/bookkeeping\s+note_added\s+\{"id":1\}/);
    expect(shown.stdout).toMatch(/▌ surface\s+user_message\s+second/);
    expect(shown.stdout).toMatch(/\d+ surface events \(the model's messages\), \d+ bookkeeping events/);
    expect(shown.stdout).toContain("Usage: 3 requests · 5 tool calls");
    expect(shown.stdout).toContain('State deps (rebuilt from the log): {"notes":[{"id":1,"text":"Remember the milk"');

    const data = json<{ summary: Summary; events: { seq: number; type: string }[] }>(
      await cli("sessions", "show", "s1", "--json"),
    );
    expect(data.summary).toMatchObject({ sessionId: "s1", status: "completed", agent: "nous-assistant" });
    expect(data.events.map((event) => event.seq)).toEqual(data.events.map((_, index) => index + 1));

    const missing = await cli("sessions", "show", "nope");
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('Session "nope" not found');
    expect((await cli("sessions", "show")).code).toBe(2);
  });
});

describe("nous sessions fork, export, delete", () => {
  it("forks a prefix, exports the serialized log (stdout and --out) and deletes", async () => {
    const forked = await cli("sessions", "fork", "s1", "--at", "3", "--new-id", "s1-fork");
    expect(forked.code).toBe(0);
    expect(forked.stdout).toBe("s1-fork\n");
    const summary = json<{ summary: Summary }>(await cli("sessions", "show", "s1-fork", "--json")).summary;
    expect(summary).toMatchObject({ eventCount: 3, parentSessionId: "s1", forkedAtSeq: 3 });
    expect((await cli("sessions", "fork", "s1", "--at", "999")).code).toBe(2);
    expect((await cli("sessions", "fork", "s1")).code).toBe(2);
    expect(json(await cli("sessions", "fork", "s1", "--at", "0", "--json"))).toMatchObject({
      parentSessionId: "s1",
      forkedAtSeq: 0,
    });

    const exported = await cli("sessions", "export", "s1");
    expect(exported.code).toBe(0);
    const log = deserializeLog(exported.stdout);
    expect(log.events[0]?.type).toBe("run_started");
    const out = join(temporaryDirectory("nous-export-"), "s1.json"); // not in cwd: list_files would see it on replay
    expect((await cli("sessions", "export", "s1", "--out", out)).code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(exported.stdout);

    expect(json(await cli("sessions", "delete", "s1-fork", "--json"))).toEqual({ sessionId: "s1-fork", deleted: true });
    const again = await cli("sessions", "delete", "s1-fork");
    expect(again.code).toBe(4);
    expect((await cli("sessions", "export", "s1-fork")).code).toBe(4);
  });
});

describe("nous sessions replay", () => {
  it("replays a built-in assistant session offline and reports a match (exit 0)", async () => {
    const replay = await cli("sessions", "replay", "s1");
    expect(replay.stdout).toMatch(/✓ Replay matches the recording: \d+ events, 3 model responses replayed/);
    expect(replay.code).toBe(0);
    const data = json(await cli("sessions", "replay", "s1", "--json"));
    expect(data).toMatchObject({ sessionId: "s1", matches: true, modelResponsesUnused: 0 });
  });

  it("replays an agent file's session, and reports where a diverging log differs (exit 5)", async () => {
    expect((await cli("sessions", "replay", "slow-1", join(FIXTURES, "slow-agent.ts"))).code).toBe(0);
    // Replaying the slow agent's session with the built-in assistant: its tools do not match the recording.
    const diverged = await cli("sessions", "replay", "slow-1", "--json");
    expect(diverged.code).toBe(5);
    expect(json(diverged)).toMatchObject({ matches: false, difference: { seq: expect.any(Number) } });
    const text = await cli("sessions", "replay", "slow-1");
    expect(text.stdout).toMatch(/✗ Replay differs from the recording at seq \d+\n {2}recorded: \{\n {4}"type": /);
    expect(text.stdout).toMatch(/\n {2}replayed: (\{\n {4}"type": |\(no event\))/);
    const instance = await cli("sessions", "replay", "slow-1", join(FIXTURES, "echo-agent.mjs"), "--export", "echo");
    expect(instance.code).toBe(2);
    expect(instance.stderr).toContain("export a factory");
  });

  it("replays a code-mode session, nested calls included (their durations aside)", async () => {
    const agent = join(FIXTURES, "code-agent.ts");
    expect((await cli("run", agent, "add up", "--session", "code-1")).code).toBe(0);
    const data = json(await cli("sessions", "replay", "code-1", agent, "--json"));
    expect(data).toMatchObject({ sessionId: "code-1", matches: true });
  });
});

describe("nous sessions verify", () => {
  it("verifies a clean store (exit 0) and reports a damaged event by session and seq (exit 6)", async () => {
    const count = json<{ sessions: Summary[] }>(await cli("sessions", "list", "--json")).sessions.length;
    const clean = await cli("sessions", "verify");
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/^ok\s+s1\s+\d+ events$/m);
    expect(clean.stdout).toMatch(/^ok\s+mail-1\s+\d+ events$/m);
    expect(clean.stdout).toContain("storage check (SQLite integrity_check, foreign_key_check): ok");
    expect(clean.stdout).toMatch(new RegExp(`^Verified ${count} sessions, \\d+ events: none damaged\\.$`, "m"));
    expect((await cli("sessions", "verify", "s1")).stdout).toMatch(/^Verified 1 session, \d+ events: none damaged\.$/m);
    expect((await cli("sessions", "verify", "nope")).code).toBe(4);
    expect((await cli("sessions", "verify", "a", "b")).code).toBe(2);
    const help = await cli("sessions", "verify", "--help");
    expect(help.stdout).toContain("verify [id]");
    expect(help.stdout).toContain("exit 6 when anything is");

    const damaged = join(temporaryDirectory("nous-damaged-"), "sessions.db");
    copyFileSync(store, damaged);
    const db = new Database(damaged);
    const seq = db
      .prepare("SELECT seq FROM events WHERE session_id = 's1' AND type = 'user_message' AND data LIKE '%first%'")
      .pluck()
      .get() as number;
    db.prepare("UPDATE events SET data = replace(data, 'first', 'fir5t') WHERE session_id = 's1' AND seq = ?").run(seq);
    db.close();
    const onDamaged = (...args: string[]) => runCli([...args, "--store", damaged], { cwd });

    const report = await onDamaged("sessions", "verify");
    expect(report.code).toBe(6);
    expect(report.stdout).toMatch(
      new RegExp(`^DAMAGED\\s+s1\\s+seq ${seq} \\(checksum_mismatch\\): its checksum does not match its content`, "m"),
    );
    expect(report.stdout).toMatch(/^ok\s+mail-1\s+\d+ events$/m);
    expect(report.stdout).toMatch(new RegExp(`^Verified ${count} sessions, \\d+ events: 1 damaged\\.$`, "m"));
    const data = json<{ ok: boolean; damagedSessions: number; sessions: { sessionId: string; status: string }[] }>(
      await onDamaged("sessions", "verify", "--json"),
    );
    expect(data).toMatchObject({ ok: false, damagedSessions: 1, checkedSessions: count });
    expect(data.sessions.find((session) => session.sessionId === "s1")).toMatchObject({ status: "damaged", seq });
    expect((await onDamaged("sessions", "verify", "mail-1")).code).toBe(0);

    const shown = await onDamaged("sessions", "show", "s1");
    expect(shown.code).toBe(6);
    expect(shown.stderr).toContain(`session "s1", seq ${seq}`);
    expect(shown.stderr).toContain("[event_corrupted]");
  });

  it("refuses a 0-byte store file instead of opening it empty (exit 6)", async () => {
    const empty = join(temporaryDirectory("nous-empty-"), "sessions.db");
    writeFileSync(empty, "");
    const result = await runCli(["sessions", "list", "--store", empty], { cwd });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain("is not a Nous session store: the file is empty (0 bytes)");
    expect(result.stderr).toContain("[store_unrecognized]");
  });
});
