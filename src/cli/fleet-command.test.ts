/** `nous submit` and `nous worker` as a user runs them: real processes, a SQLite store shared on one machine, Redis. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it, vi } from "vitest";
import { redisReachable } from "../fleet/test-support/redis-server.js";
import { cliCommand, FIXTURES, json, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

const cwd = temporaryDirectory();
const store = join(temporaryDirectory("nous-store-"), "sessions.db");
const agentFile = join(FIXTURES, "slow-agent.ts");
const queue = `cli-fleet-${process.pid}`;
const children: ReturnType<typeof spawn>[] = [];

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

describe("nous submit / nous worker: usage", () => {
  it("print their help; a missing agent or prompt is a usage error (2)", async () => {
    for (const command of ["submit", "worker"]) {
      const help = await runCli([command, "--help"], { cwd });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: nous ${command}`);
      expect(help.stdout).toContain("Exit codes:");
    }
    const noAgent = await runCli(["worker"], { cwd });
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain("--agent file is required");
    const noPrompt = await runCli(["submit", "--agent", agentFile], { cwd });
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain("the prompt is required");
  });
});

describe.runIf(await redisReachable("nous worker suite"))("nous submit / nous worker: a run through the queue", () => {
  it("a worker runs what submit queued; submit --wait prints the answer; SIGTERM drains and exits 0", async () => {
    const [command, ...args] = cliCommand([
      "worker",
      "--agent",
      agentFile,
      "--store",
      store,
      "--queue",
      queue,
      "--json",
    ]) as [string, ...string[]];
    const worker = spawn(command, args, {
      cwd,
      env: { ...process.env, NOUS_MODEL: "", NOUS_STORE: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(worker);
    let stderr = "";
    worker.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const lines = createInterface({ input: worker.stdout as NodeJS.ReadableStream });
    const seen: Record<string, unknown>[] = [];
    const ready = new Promise<void>((resolve) => {
      lines.on("line", (line) => {
        const event = JSON.parse(line) as Record<string, unknown>;
        seen.push(event);
        if (event.type === "ready") resolve();
      });
    });
    await ready;
    const submitted = await runCli(
      [
        "submit",
        "--agent",
        agentFile,
        "hello",
        "--store",
        store,
        "--queue",
        queue,
        "--session",
        "cli-s1",
        "--wait",
        "--json",
      ],
      {
        cwd,
      },
    );
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(json(submitted)).toMatchObject({ sessionId: "cli-s1", status: "completed", queue });
    expect(seen.map((event) => event.type)).toEqual(["ready", "started", "ended"]);
    // The session is in the shared store like any other: nous sessions show reads it.
    const shown = await runCli(["sessions", "show", "cli-s1", "--store", store, "--json"], { cwd });
    expect(shown.code).toBe(0);
    const exited = new Promise<number | null>((resolve) => worker.on("exit", resolve));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stderr).toContain("Drained.");
  });

  it("an agent that sets its own queue refuses --queue (2)", async () => {
    const own = join(FIXTURES, "../../fleet/test-support/fleet-agent.mjs");
    const result = await runCli(["submit", "--agent", own, "x", "--queue", "other"], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the agent sets its own queue");
  });
});
