import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { OFFLINE_NOTICE } from "../index.js";
import { FIXTURES, json, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

const cwd = temporaryDirectory();
const store = join(temporaryDirectory("nous-store-"), "sessions.db");

describe("nous (top level)", () => {
  it("prints help with the exit codes; unknown commands are usage errors (2)", async () => {
    const help = await runCli(["--help"], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("run [agent-file]");
    expect(help.stdout).toMatch(/130\s+interrupted/);
    const none = await runCli([], { cwd });
    expect(none.code).toBe(2);
    const unknown = await runCli(["frobnicate"], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "frobnicate"');
    const commands = ["run", "chat", "sessions", "approvals", "inspect"];
    const results = await Promise.all(commands.map((command) => runCli([command, "--help"], { cwd })));
    commands.forEach((command, index) => {
      const result = results[index];
      expect(result?.code, command).toBe(0);
      expect(result?.stdout, command).toContain(`Usage: nous ${command}`);
      expect(result?.stdout, command).toContain("Exit codes:");
    });
  }, 120_000);
});

describe("nous run", () => {
  it("runs the built-in assistant on the TestModel: answer on stdout, tool calls, session and usage on stderr", async () => {
    const result = await runCli(["run", "What time is it?", "--model", "test", "--store", store], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Done\. Tool results: current_time: /);
    expect(result.stdout).toContain('calculate: {"expression":"(2 + 3) * 4","value":20}');
    expect(result.stdout).not.toContain("Session:");
    expect(result.stderr).toContain("the built-in offline TestModel");
    expect(result.stderr.match(/TestModel/g)).toHaveLength(1);
    expect(result.stderr).toMatch(/Session: [0-9a-f-]{36} \(new\)/);
    expect(result.stderr).toMatch(/→ calculate\(\{"expression":"\(2 \+ 3\) \* 4"\}\)/);
    expect(result.stderr).toMatch(/✓ add_note \d+ ms → \{"added":1\}/);
    expect(result.stderr).toMatch(/Usage: 2 requests · 5 tool calls · \d+ tokens/);
    expect(result.stdout + result.stderr).not.toContain("\u001b[");
  });

  it("runs the built-in assistant on the offline model by default: the right answer, and one line on how to use a real model", async () => {
    const result = await runCli(["run", "What is 2^10?", "--store", store], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("2^10 = 1024\n");
    expect(result.stderr).toContain(`Model: offline:rules · ${OFFLINE_NOTICE}`);
    expect(result.stderr).toMatch(/→ calculate\(\{"expression":"2\^10"\}\)/);
    expect(result.stderr).toMatch(/Usage: 2 requests · 1 tool call /);
  });

  it("--json prints one object; --session continues with state rebuilt from the log; --deps seeds a new session", async () => {
    const depsFile = join(cwd, "deps.json");
    writeFileSync(depsFile, JSON.stringify({ notes: [{ id: 7, text: "seeded", at: "2026-01-01T00:00:00.000Z" }] }));
    const first = json(
      await runCli(
        ["run", "note this", "--session", "r1", "--model", "test", "--store", store, "--deps", depsFile, "--json"],
        { cwd },
      ),
    );
    expect(first).toMatchObject({ sessionId: "r1", status: "completed", usage: { requests: 2, toolCalls: 5 } });
    expect((first.deps as { notes: { id: number; text: string }[] }).notes.map((note) => note.id)).toEqual([7, 8]);
    expect((first.toolCalls as { toolName: string }[]).map((call) => call.toolName)).toEqual([
      "current_time",
      "calculate",
      "add_note",
      "list_notes",
      "list_files",
    ]);
    const second = await runCli(
      ["run", "and again", "--session", "r1", "--model", "test", "--store", store, "--json"],
      {
        cwd,
      },
    );
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/Session: r1 \(continued, \d+ events\)/);
    // The second turn sees the first turn's tool calls in its history, so the TestModel answers at once.
    expect(json(second)).toMatchObject({ status: "completed", usage: { requests: 1, toolCalls: 0 } });
    expect((json(second).deps as { notes: unknown[] }).notes).toHaveLength(2);
  });

  it("loads agent files: a .ts factory (default export) and a .mjs named Agent instance with live deps", async () => {
    const mjs = await runCli(["run", join(FIXTURES, "echo-agent.mjs"), "Bob", "--export", "echo", "--store", store], {
      cwd,
    });
    expect(mjs.code).toBe(0);
    expect(mjs.stdout).toBe("The tool said: Hello, Bob!\n");
    const ignored = await runCli(
      ["run", join(FIXTURES, "echo-agent.mjs"), "Bob", "--export", "echo", "--model", "test", "--store", store],
      { cwd },
    );
    expect(ignored.stderr).toContain("--model is ignored");
    const ts = await runCli(["run", join(FIXTURES, "slow-agent.ts"), "hello", "--store", store, "--json"], { cwd });
    expect(json(ts)).toMatchObject({ status: "completed", output: "Seen 1 prompts: hello" });
  });

  it("exits 3 when the run waits for approval, naming the command that decides it", async () => {
    const result = await runCli(
      ["run", join(FIXTURES, "approval-agent.ts"), "hi", "--session", "ap", "--store", store],
      { cwd },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("Waiting for approval (session ap)");
    expect(result.stderr).toMatch(/nous approvals approve ap mail_[0-9a-f]{8}/);
    const again = json(
      await runCli(["run", join(FIXTURES, "approval-agent.ts"), "hi", "--store", store, "--json"], { cwd }),
    );
    expect(again).toMatchObject({ status: "awaiting_approval", error: { code: "approval_pending" } });
    expect(again.pending).toEqual([
      { toolCallId: expect.any(String), toolName: "send_email", args: { to: "ann@example.com", body: "hi" } },
    ]);
  });

  it("exits 1 when the run fails (limit) and 2 on usage errors", async () => {
    const limited = await runCli(
      ["run", "hi", "--max-iterations", "1", "--model", "test", "--store", store, "--json"],
      {
        cwd,
      },
    );
    expect(limited.code).toBe(1);
    expect(json(limited)).toMatchObject({ status: "failed", error: { code: "max_iterations_exceeded" } });
    const cases: [string[], string][] = [
      [["run"], "needs a prompt"],
      [["run", "a", "b", "c"], "at most"],
      [["run", "hi", "--bogus"], "Unknown option"],
      [["run", "hi", "--max-iterations", "zero"], "--max-iterations must be a whole number"],
      [["run", "missing.ts", "hi"], "does not exist"],
      [["run", "notes.txt", "hi"], "must be a .js"],
      [["run", join(FIXTURES, "slow-agent.ts"), "hi", "--export", "nope"], 'has no export "nope"'],
      [["run", "hi", "--deps", "absent.json"], "--deps: cannot read"],
      [["run", "hi", "--model", "nosuch:model"], "nosuch"],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli([...args, "--store", store], { cwd })));
    cases.forEach(([args, message], index) => {
      expect(results[index]?.code, args.join(" ")).toBe(2);
      expect(results[index]?.stderr, args.join(" ")).toContain(message);
    });
  }, 120_000);

  it("uses .nous/sessions.db under the working directory by default, and reads a prompt from stdin with -", async () => {
    const own = temporaryDirectory();
    const result = await runCli(["run", "-", "--session", "stdin", "--json"], { cwd: own, input: "from stdin\n" });
    expect(result.stderr).toContain("store .nous/sessions.db");
    const shown = json(await runCli(["sessions", "show", "stdin", "--json"], { cwd: own }));
    expect(
      (shown.events as { type: string; data: unknown }[]).find((event) => event.type === "user_message")?.data,
    ).toEqual({
      content: "from stdin",
    });
  });
});

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const reachable = await (async () => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
})();

if (!reachable && process.env.CI) {
  it("nous run on PostgreSQL needs a server in CI", () => {
    throw new Error(`PostgreSQL unreachable at ${url}: set DATABASE_URL`);
  });
} else if (!reachable) {
  console.warn(`nous CLI PostgreSQL case skipped: no server at ${url}`);
} else {
  describe("nous run with a PostgreSQL store", () => {
    it("runs, continues and lists a session in a postgres:// store (own schema)", async () => {
      const schema = `nous_cli_${process.pid}_${Date.now().toString(36)}`;
      const location = new URL(url);
      location.searchParams.set("schema", schema);
      try {
        const first = await runCli(["run", "hi", "--session", "pg1", "--store", location.toString(), "--json"], {
          cwd,
        });
        expect(json(first)).toMatchObject({ sessionId: "pg1", status: "completed" });
        expect(first.stderr).toContain("store postgres://");
        const second = await runCli(["run", "again", "--session", "pg1", "--store", location.toString()], { cwd });
        expect(second.code).toBe(0);
        const listed = json<{ sessions: { sessionId: string; status: string }[] }>(
          await runCli(["sessions", "list", "--store", location.toString(), "--json"], { cwd }),
        );
        expect(listed.sessions).toEqual([expect.objectContaining({ sessionId: "pg1", status: "completed" })]);
      } finally {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    });
  });
}
