/**
 * Every example command of the README, run offline through the built CLI, prints the right answer.
 * The commands are read from the README's `sh` blocks; each has a check below, and a command the
 * README gains without one fails the first test. They run in order, as one story, in a fresh folder
 * (its node_modules holds only links to what the README's agent.ts imports: nous, zod, tsx).
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { OFFLINE_NOTICE } from "../index.js";
import { repoRoot } from "../test-support/packed-project.js";
import { type CliResult, cliCommand, runCli, TSX_LOADER, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

const README = readFileSync(join(repoRoot, "README.md"), "utf8");

/** The commands of the README's sh blocks that run nous (without `npx`) or the main job (`npm start`). */
function readmeCommands(): string[] {
  const commands: string[] = [];
  for (const [, block] of README.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of (block ?? "").split("\n")) {
      const line = raw.replace(/\s+#\s.*$/, "").trim();
      if (/^(?:npx )?nous\s/.test(line)) commands.push(line.replace(/^npx /, ""));
      else if (/\bnpm start\b/.test(line)) commands.push("npm start");
    }
  }
  return commands;
}

/** Splits a command line into arguments (double quotes group words). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? "");
}

/** The README's agent.ts (the ts block that starts with `// agent.ts`). */
function readmeAgent(): string {
  const start = README.indexOf("```ts\n// agent.ts\n");
  expect(start, "the README shows agent.ts").toBeGreaterThan(-1);
  return README.slice(start + "```ts\n".length, README.indexOf("```", start + 6));
}

const cwd = temporaryDirectory("nous-readme-");
writeFileSync(join(cwd, "package.json"), JSON.stringify({ name: "readme-user", private: true, type: "module" }));
writeFileSync(join(cwd, "agent.ts"), readmeAgent());
mkdirSync(join(cwd, "node_modules"));
symlinkSync(repoRoot, join(cwd, "node_modules", "nous"));
for (const name of ["zod", "tsx"]) symlinkSync(join(repoRoot, "node_modules", name), join(cwd, "node_modules", name));

/** Offline: no model chosen, no provider key. */
const env: Record<string, string> = { NOUS_MODEL: "", NOUS_STORE: "", ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };
const nous = (command: string, input?: string): Promise<CliResult> =>
  runCli(words(command).slice(1), { cwd, env, input });

type Check = (command: string) => Promise<void>;

const checks: Record<string, Check> = {
  "npm start": async () => {
    // `npm start` is `tsx examples/main.ts`; run from a folder of its own so its store lands there.
    const folder = temporaryDirectory("nous-main-");
    const result = await new Promise<CliResult>((done) =>
      execFile(
        process.execPath,
        ["--import", TSX_LOADER, join(repoRoot, "examples", "main.ts")],
        { cwd: folder, env: { ...process.env, ...env }, timeout: 120_000 },
        (error, stdout, stderr) => done({ code: error ? 1 : 0, stdout, stderr }),
      ),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(OFFLINE_NOTICE);
    expect(result.stdout).toContain('→ add_todo({"text":"buy milk"})');
    expect(result.stdout).toContain('→ set_reminder({"channel":"sms","hour":8})');
    expect(result.stdout).toContain('Added "buy milk" to your todo list (item 1). I will remind you by SMS at 8:00.');
    const deps = JSON.parse(/Final deps[^\n]*\n(\{[\s\S]*?\n\})/.exec(result.stdout)?.[1] ?? "null");
    expect(deps).toEqual({
      todos: [{ id: 1, text: "buy milk", done: false }],
      preferences: { reminders: { channel: "sms", hour: 8 } },
    });
    expect(result.stdout).toContain("Deps rebuilt from the log equal the result: true");
  },
  'nous run "What is 2^10?"': async (command) => {
    const result = await nous(command);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("2^10 = 1024\n");
    expect(result.stderr).toContain(OFFLINE_NOTICE);
  },
  'nous run --model anthropic:claude-sonnet-4-5 "List the files here"': async (command) => {
    // Offline there is no key: one clear error naming it, exit 1.
    const result = await nous(command);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("anthropic: no API key: set ANTHROPIC_API_KEY");
  },
  "nous chat --session notes": async (command) => {
    const result = await nous(command, "What is 2^10?\nAdd a note: call Bob\nList my notes\n");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("2^10 = 1024");
    expect(result.stdout).toContain('Noted: "call Bob" (note 1).');
    expect(result.stdout).toContain("You have 1 note: 1. call Bob.");
  },
  'nous run ./agent.ts "Remind me to buy milk, by SMS at 7pm" --session u42': async (command) => {
    const result = await nous(command);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain("Waiting for approval (session u42)");
    expect(result.stderr).toContain('set_reminder({"channel":"sms","hour":19})  call call_1_1');
    // The hint names the README's next command.
    expect(result.stderr).toContain("nous approvals approve u42 call_1_1 --agent ./agent.ts ");
  },
  "nous sessions list --status awaiting_approval": async (command) => {
    const result = await nous(command);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.trim().split("\n").slice(1);
    expect(rows.map((row) => row.split(/\s+/).slice(0, 3))).toEqual([["u42", "awaiting_approval", "todo-keeper"]]);
  },
  "nous approvals approve u42 call_1_1 --agent ./agent.ts": async (command) => {
    const result = await nous(command);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Added "buy milk" to your todo list (item 1). I will remind you by SMS at 19:00.\n');
  },
  "nous sessions resume u42 --agent ./agent.ts --abandon-in-doubt": async (command) => {
    // In this story u42 finished when approved: there is no killed run to continue, and it says so.
    const result = await nous(command);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Session "u42" has no unfinished run to resume');
  },
  "nous inspect": async (command) => {
    // Port 0 instead of 4317, so that a busy port cannot fail the test.
    const [binary, ...args] = cliCommand([...words(command).slice(1), "--port", "0"]) as [string, ...string[]];
    const child = spawn(binary, args, { cwd, env: { ...process.env, ...env } });
    const exited = new Promise<number | null>((done) => child.on("close", done));
    let stdout = "";
    const url = await new Promise<string>((done, fail) => {
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        const printed = /Inspector: (\S+)/.exec(stdout)?.[1];
        if (printed !== undefined) done(printed);
      });
      child.on("close", () => fail(new Error(`nous inspect exited: ${stdout}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    const token = new URL(url).searchParams.get("token") ?? "";
    const page = await fetch(url.replace(/\?.*$/, ""), { headers: { "x-nous-token": token } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Nous inspector");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  },
};

describe("the README's example commands, offline", () => {
  const commands = readmeCommands();

  it("every command in the README has a check here, and every check a command", () => {
    expect(commands.length).toBeGreaterThan(5);
    expect([...new Set(commands)].sort()).toEqual(Object.keys(checks).sort());
  });

  for (const command of commands) {
    it(`${command} prints the right answer`, async () => {
      const check = checks[command];
      if (check === undefined) throw new Error(`No check for the README command: ${command}`);
      await check(command);
    });
  }
});
