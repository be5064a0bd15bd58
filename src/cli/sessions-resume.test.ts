import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { cliCommand, FIXTURES, json, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 180_000 });

const cwd = temporaryDirectory();
const store = join(temporaryDirectory("nous-store-"), "sessions.db");
const effects = join(cwd, "effects.log");
const env = { NOUS_TEST_EFFECTS: effects };
const cli = (...args: string[]) => runCli([...args, "--store", store], { cwd, env });
const charger = join(FIXTURES, "charge-agent.ts");

type Shown = {
  summary: { status: string; eventCount: number };
  events: { seq: number; type: string; data: { toolCallId?: string } }[];
};
const show = async (id: string) => json<Shown>(await cli("sessions", "show", id, "--json"));
const charges = () =>
  existsSync(effects) ? readFileSync(effects, "utf8").trim().split("\n").filter(Boolean).length : 0;

/** Starts `nous run` with the charger, whose charge hangs once made; resolves once the charge happened, with a kill -9. */
async function runUntilCharged(sessionId: string, leaseMs: number): Promise<() => Promise<void>> {
  const before = charges();
  const [command, ...args] = cliCommand(["run", charger, "charge me", "--session", sessionId, "--store", store]) as [
    string,
    ...string[],
  ];
  const child = spawn(command, args, {
    cwd,
    env: {
      ...process.env,
      ...env,
      NOUS_MODEL: "",
      NOUS_STORE: "",
      NOUS_TEST_BLOCK: "1",
      NOUS_TEST_LEASE_MS: String(leaseMs),
    },
    stdio: "ignore",
  });
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  for (let waited = 0; charges() === before; waited += 50) {
    if (waited > 60_000) throw new Error("the run never charged");
    await sleep(50);
  }
  return async () => {
    child.kill("SIGKILL");
    await exited;
  };
}

describe("nous sessions resume", () => {
  it("continues a run killed with kill -9 mid-tool (waiting out its lease), once the call in doubt is decided; without a decision it refuses and records nothing", async () => {
    const kill = await runUntilCharged("killed", 15_000);
    await kill();
    expect(charges()).toBe(1);
    const before = await show("killed");
    expect(before.events.at(-1)?.type).toBe("tool_call");

    const undecided = await cli("sessions", "resume", "killed", "--agent", charger);
    expect(undecided.code).toBe(2);
    expect(undecided.stderr).toContain('Session "killed" has 1 tool call(s) in doubt');
    expect(undecided.stderr).toContain('charge({"amount":5})  call charge_1');
    expect(undecided.stderr).toContain("--rerun <call>");
    expect(undecided.stderr).toContain("--abandon-in-doubt");
    const withoutAgent = await cli("sessions", "resume", "killed", "--abandon-in-doubt");
    expect(withoutAgent.code).toBe(2);
    expect(withoutAgent.stderr).toContain('was run by agent "charger"');
    expect(withoutAgent.stderr).toContain("pass --agent FILE");
    expect(await show("killed")).toEqual(before);

    const resumed = await cli("sessions", "resume", "killed", "--agent", charger, "--abandon-in-doubt");
    expect(resumed.code).toBe(0);
    // The killed process never released its lease: resume waited for it to expire.
    expect(resumed.stderr).toMatch(/The process that ran it \(pid \d+ on this machine\) is gone; waiting \d+ s/);
    expect(resumed.stdout).toContain("Charge outcome:");
    expect(resumed.stdout).toContain("Not run again");
    const after = await show("killed");
    expect(after.summary.status).toBe("completed");
    expect(after.events.map((event) => event.type)).toContain("run_resumed");
    expect(charges()).toBe(1); // abandoned: the charge was not repeated
  });

  it("resumes a session forked mid-run: a fork at a call's intent re-runs it as decided; a fork inside its record finishes it without running it again", async () => {
    expect((await cli("run", charger, "charge me", "--session", "whole")).code).toBe(0);
    const whole = await show("whole");
    const intent = whole.events.find((event) => event.type === "tool_call");
    const update = whole.events.find(
      (event) => event.type === "context_update" && event.data.toolCallId === "charge_1",
    );
    const charged = charges();

    const atIntent = (
      await cli("sessions", "fork", "whole", "--at", String(intent?.seq), "--new-id", "fork-intent")
    ).stdout.trim();
    const rerun = await cli("sessions", "resume", atIntent, "--agent", charger, "--rerun", "charge_1", "--json");
    expect(rerun.code).toBe(0);
    expect(json(rerun)).toMatchObject({
      status: "completed",
      output: 'Charge outcome: {"charged":5}',
      inDoubt: { charge_1: "rerun" },
    });
    expect(charges()).toBe(charged + 1);

    const inside = (
      await cli("sessions", "fork", "whole", "--at", String(update?.seq), "--new-id", "fork-inside")
    ).stdout.trim();
    const finished = await cli("sessions", "resume", inside, "--agent", charger);
    expect(finished.code).toBe(0);
    expect((await show(inside)).summary.status).toBe("completed");
    expect(charges()).toBe(charged + 1); // its update was recorded: not charged again
  });

  it("a session run by the built-in assistant resumes with the built-in assistant; another agent continues it only with --allow-agent-change (recorded); unknown sessions exit 4", async () => {
    expect((await cli("run", "what is 2+3?", "--session", "builtin")).code).toBe(0);
    const asked = (await show("builtin")).events.find((event) => event.type === "assistant_message");
    const fork = (await cli("sessions", "fork", "builtin", "--at", String(asked?.seq))).stdout.trim();
    const resumed = await cli("sessions", "resume", fork);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("with built-in assistant");
    expect((await show(fork)).summary.status).toBe("completed");
    expect((await cli("sessions", "resume", "nope")).code).toBe(4);
    expect((await cli("sessions", "resume", "builtin")).stderr).toContain("no unfinished run to resume");
    // Continuing it with another agent is refused too, unless the change is asked for (and recorded).
    const before = await show("builtin");
    const other = await cli("run", charger, "charge me", "--session", "builtin");
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('was run by agent "nous-assistant"');
    expect(other.stderr).toContain("[agent_mismatch]");
    expect(await show("builtin")).toEqual(before);
    expect((await cli("run", charger, "charge me", "--session", "builtin", "--allow-agent-change")).code).toBe(0);
    expect((await show("builtin")).events.map((event) => event.type)).toContain("agent_changed");
  });
});
