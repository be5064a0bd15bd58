import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { terminalText } from "./cli-support.js";
import { FIXTURES, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

// Every C0 control except newline and tab, DEL and the C1 range.
// biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("terminalText", () => {
  it("neutralises control characters other than newline and tab", () => {
    expect(terminalText("a\u001b[2Jb\u0007c\rd\u009be\u007f")).toBe("a␛[2Jb␇c␍d\\x9be␡");
    expect(terminalText("line\r\nnext\tcol\n")).toBe("line\nnext\tcol\n");
    expect(terminalText("plain ✓ text")).toBe("plain ✓ text");
  });
});

describe("model and tool text printed by the CLI", () => {
  const cwd = temporaryDirectory();
  const store = join(temporaryDirectory("nous-store-"), "sessions.db");
  const agent = join(FIXTURES, "hostile-agent.ts");

  it("neutralises terminal control sequences in nous run, chat and sessions show", async () => {
    const run = await runCli(["run", agent, "hi", "--session", "h1", "--store", store], { cwd });
    expect(run.code).toBe(0);
    const chat = await runCli(["chat", agent, "--session", "h2", "--store", store], { cwd, input: "hi\n" });
    expect(chat.code).toBe(0);
    const show = await runCli(["sessions", "show", "h1", "--store", store], { cwd });
    expect(show.code).toBe(0);
    for (const [name, result] of Object.entries({ run, chat, show })) {
      expect(result.stdout + result.stderr, name).not.toMatch(CONTROL);
    }
    expect(run.stdout).toContain("Answer:␛[2J␛[H␛]0;pwned␇");
    expect(run.stdout).toContain("\tend\n");
    expect(run.stderr).toContain("echo");
    expect(chat.stdout).toContain("Answer:␛[2J");
    expect(show.stdout).toContain("␛]8;;https://evil.example");
  });
});
