import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { FIXTURES, json, runCli, temporaryDirectory } from "./fixtures/cli-process.js";
import { formatCost } from "./render-stream.js";

vi.setConfig({ testTimeout: 120_000 });

const cwd = temporaryDirectory();
const store = join(temporaryDirectory("nous-store-"), "sessions.db");
const agent = join(FIXTURES, "priced-agent.ts");

describe("cost in the CLI", () => {
  it("formats a cost: dollars, partial, unknown", () => {
    expect(formatCost({ usd: 0.0028, partial: false })).toBe("cost $0.002800");
    expect(formatCost({ usd: 1.23456, partial: false })).toBe("cost $1.2346");
    expect(formatCost({ usd: 0.5, partial: true })).toBe("cost $0.5000 + unpriced requests");
    expect(formatCost({ usd: 0, partial: true })).toBe("cost unknown");
  });

  it("nous run prints the run's cost with its usage, --json carries it, sessions list and show too", async () => {
    // 1000 input × 2 + 100 output × 8 per million tokens = 0.0028 USD.
    const run = await runCli(["run", agent, "hi", "--session", "p1", "--store", store], { cwd });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /Usage: 1 request · 0 tool calls · 1100 tokens \(1000 in, 100 out\) · cost \$0\.002800 · /,
    );
    const second = json(await runCli(["run", agent, "again", "--session", "p1", "--store", store, "--json"], { cwd }));
    expect(second.cost).toEqual({ usd: 0.0028, partial: false });
    const shown = await runCli(["sessions", "show", "p1", "--store", store], { cwd });
    expect(shown.stdout).toContain("stop · 1100 tokens · ");
    expect(shown.stdout).toContain(" · cost $0.002800\n");
    expect(shown.stdout).toContain("Cost: $0.005600\n");
    const listed = await runCli(["sessions", "list", "--store", store], { cwd });
    expect(listed.stdout).toMatch(/COST/);
    expect(listed.stdout).toMatch(/p1 .* 2200 +\$0\.005600 /);
    const listedJson = json<{ sessions: { sessionId: string; cost: unknown }[] }>(
      await runCli(["sessions", "list", "--store", store, "--json"], { cwd }),
    );
    expect(listedJson.sessions.find((session) => session.sessionId === "p1")?.cost).toEqual({
      usd: 0.0056,
      partial: false,
    });
  });
});
