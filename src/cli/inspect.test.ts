import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cliCommand, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

describe("nous inspect", () => {
  it("serves the inspector on a loopback port with a token by default, prints its URL (--json), and stops on SIGINT with exit 0", async () => {
    const cwd = temporaryDirectory();
    const store = join(temporaryDirectory("nous-store-"), "sessions.db");
    expect((await runCli(["run", "hi", "--session", "i1", "--store", store], { cwd })).code).toBe(0);
    const [command, ...args] = cliCommand(["inspect", "--port", "0", "--store", store, "--json"]) as [
      string,
      ...string[],
    ];
    const child = spawn(command, args, { cwd, env: { ...process.env, NOUS_MODEL: "", NOUS_STORE: "" } });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on("close", done));
    const line = await new Promise<string>((done, fail) => {
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.includes("\n")) done(stdout.split("\n")[0] as string);
      });
      child.on("close", () => fail(new Error(`inspect exited early: ${stderr}`)));
    });
    const info = JSON.parse(line) as { url: string; token: string | null };
    expect(info.token).toMatch(/^[\w-]{32}$/);
    expect(info.url).toBe(`${info.url.replace(/\?.*$/, "")}?token=${info.token}`);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    expect((await fetch(info.url.replace(/\?.*$/, ""))).status).toBe(401);
    expect((await fetch(info.url, { redirect: "manual" })).status).toBe(302); // the token moves into a cookie
    const page = await fetch(info.url.replace(/\?.*$/, ""), { headers: { "x-nous-token": info.token ?? "" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Nous inspector");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stderr).toContain("Stopping the inspector");
  });

  it("refuses with exit 2 a token shorter than 32 characters, --no-token off loopback, and other bad options", async () => {
    const cwd = temporaryDirectory();
    const results = await Promise.all([
      runCli(["inspect", "--port", "70000"], { cwd }),
      runCli(["inspect", "extra"], { cwd }),
      runCli(["inspect", "--port", "0", "--token", "a"], { cwd }),
      runCli(["inspect", "--port", "0", "--no-token", "--host", "0.0.0.0"], { cwd }),
      runCli(["inspect", "--port", "0", "--no-token", "--token", "x".repeat(40)], { cwd }),
    ]);
    expect(results.map((result) => result.code)).toEqual([2, 2, 2, 2, 2]);
    expect(results[2]?.stderr).toContain("at least 32 characters");
    expect(results[3]?.stderr).toContain("only on loopback");
  });
});
