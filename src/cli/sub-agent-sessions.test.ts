/**
 * Sessions with sub-agents through the real `nous` binary and the inspector on the same store: a
 * lead that runs a researcher (completes) and a checker (fails), each model's usage pinned.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionStore, Usage } from "../index.js";
import { startInspector } from "../inspector/server.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { TEAM_USAGE } from "../sub-agents/test-support/test-fixtures.js";
import { FIXTURES, json, runCli, temporaryDirectory } from "./fixtures/cli-process.js";

vi.setConfig({ testTimeout: 120_000 });

const cwd = temporaryDirectory();
const storePath = join(temporaryDirectory("nous-store-"), "sessions.db");
const cli = (...args: string[]) => runCli([...args, "--store", storePath], { cwd });
const TEAM = join(FIXTURES, "team-agent.ts");

type UsageTree = { sessionId: string; own: Usage; total: Usage; children: UsageTree[] };
type Totals = {
  usage: Usage;
  ownUsage: Usage;
  subAgents: { sessionId: string; usage: Usage }[];
  cost?: number;
  costPartial: boolean;
};

let runUsage: Usage;
let runCost: unknown;
const opened: SessionStore[] = [];

beforeAll(async () => {
  const run = await cli("run", TEAM, "go", "--session", "team", "--json");
  expect(run.code, run.stderr).toBe(0);
  ({ usage: runUsage, cost: runCost } = json<{ usage: Usage; cost: unknown }>(run));
}, 120_000);

afterAll(async () => {
  for (const store of opened) await store.close();
});

describe("usage totals with sub-agents", () => {
  it("usage totals in the CLI and the inspector include children exactly once (a failed child too)", async () => {
    // `nous run`: the run's usage, the children's added by the runner.
    expect(runUsage).toEqual(TEAM_USAGE.total);
    // gpt-4o: 30 in, 10 out; gpt-4o-mini (both children, the failed one too): 13 in, 4 out.
    const teamCost = (30 * 2.5 + 10 * 10 + 13 * 0.15 + 4 * 0.6) / 1e6;
    expect(runCost).toEqual({ usd: expect.closeTo(teamCost, 12), partial: false });

    // `nous sessions show --json` / text, and `sessions list`.
    const shown = json<{ usage: UsageTree }>(await cli("sessions", "show", "team", "--json")).usage;
    expect(shown.total).toEqual(TEAM_USAGE.total);
    expect(shown.own).toEqual(TEAM_USAGE.lead);
    expect(shown.children.map((child) => [child.sessionId, child.total])).toEqual([
      ["team/c1", TEAM_USAGE.checker],
      ["team/r1", TEAM_USAGE.researcher],
    ]);
    const text = (await cli("sessions", "show", "team")).stdout;
    expect(text).toContain("Usage: 5 requests · 4 tool calls · 57 tokens (43 in, 14 out)\n");
    expect(text).toContain("  own: 2 requests · 2 tool calls · 40 tokens (30 in, 10 out)\n");
    expect(text).toContain("  sub-agent team/r1: 2 requests · 1 tool call · 10 tokens (7 in, 3 out)\n");
    expect(text).toContain("Cost: $0.000179\n");
    const listed = json<{ sessions: { sessionId: string; usage: Usage }[] }>(await cli("sessions", "list", "--json"));
    expect(Object.fromEntries(listed.sessions.map((session) => [session.sessionId, session.usage]))).toEqual({
      team: TEAM_USAGE.total,
      "team/r1": TEAM_USAGE.researcher,
      "team/c1": TEAM_USAGE.checker,
    });
    expect((await cli("sessions", "list")).stdout).toMatch(/^team\s+completed\s+lead\s+scripted:gpt-4o\s+18\s+57\s/m);

    // The inspector's API on the same store: list, detail and usage agree, cost priced per model.
    const store = new SqliteStore({ path: storePath });
    opened.push(store);
    const inspector = await startInspector({ store, port: 0, token: false });
    try {
      const base = inspector.url.replace(/\/$/, "");
      const get = async <T>(path: string) => (await (await fetch(`${base}${path}`)).json()) as T;
      const page = await get<{ sessions: { sessionId: string; totals: Totals }[] }>("/api/sessions");
      expect(Object.fromEntries(page.sessions.map((session) => [session.sessionId, session.totals.usage]))).toEqual({
        team: TEAM_USAGE.total,
        "team/r1": TEAM_USAGE.researcher,
        "team/c1": TEAM_USAGE.checker,
      });
      const detail = await get<{ totals: Totals }>("/api/sessions/team");
      expect(detail.totals).toMatchObject({
        usage: TEAM_USAGE.total,
        ownUsage: TEAM_USAGE.lead,
        subAgents: [
          { sessionId: "team/c1", usage: TEAM_USAGE.checker },
          { sessionId: "team/r1", usage: TEAM_USAGE.researcher },
        ],
        costPartial: false,
      });
      // gpt-4o: 30 in, 10 out; gpt-4o-mini (both children): 13 in, 4 out.
      expect(detail.totals.cost).toBeCloseTo(teamCost, 12);
      expect(await get<Totals>("/api/sessions/team/usage")).toEqual(detail.totals);
      const child = await get<Totals>(`/api/sessions/${encodeURIComponent("team/r1")}/usage`);
      expect(child).toMatchObject({ usage: TEAM_USAGE.researcher, ownUsage: TEAM_USAGE.researcher, subAgents: [] });
      expect(child.cost).toBeCloseTo((7 * 0.15 + 3 * 0.6) / 1e6, 12);
    } finally {
      await inspector.close();
    }
  });
});

/** A copy of the team sessions in a new store, with one event of `sessionId` edited by `edit`. */
async function doctoredCopy(sessionId: string, edit: (data: Record<string, unknown>, type: string) => boolean) {
  const path = join(temporaryDirectory("nous-doctored-"), "sessions.db");
  const source = new SqliteStore({ path: storePath });
  const copy = new SqliteStore({ path });
  try {
    for (const id of ["team", "team/r1", "team/c1"]) {
      let edited = false;
      const events = (await source.read(id)).map(({ seq, at, type, data }) => {
        const copied = structuredClone(data) as Record<string, unknown>;
        if (id === sessionId && !edited) edited = edit(copied, type);
        return { seq, at, type, data: copied };
      });
      if (id === sessionId) expect(edited).toBe(true);
      await copy.append(id, events, { expectedLastSeq: 0 });
    }
  } finally {
    await source.close();
    await copy.close();
  }
  return path;
}

describe("nous sessions replay with sub-agents", () => {
  it("replay of a sub-agent session reports no difference: child sessions are compared by their path (exit 0)", async () => {
    const replay = await cli("sessions", "replay", "team", TEAM);
    expect(replay.stdout).toBe(
      "✓ Replay matches the recording: 39 events in 3 sessions (sub-agents by path), 5 model responses replayed\n",
    );
    expect(replay.code).toBe(0);
    const data = json(await cli("sessions", "replay", "team", TEAM, "--json"));
    expect(data).toMatchObject({
      matches: true,
      sessions: [
        { path: ".", sessionId: "team" },
        { path: "c1", sessionId: "team/c1" },
        { path: "r1", sessionId: "team/r1" },
      ],
      recordedEvents: 39,
      replayedEvents: 39,
      modelResponsesUnused: 0,
    });
  });

  it("a doctored sub-agent session reports its difference with both sides in full (exit 5)", async () => {
    const long = `found ${"cream and more cream, ".repeat(40)}end`;
    const doctored = await doctoredCopy("team/r1", (data, type) => {
      if (type !== "tool_result") return false;
      data.result = long;
      return true;
    });
    const replay = (...args: string[]) =>
      runCli(["sessions", "replay", "team", TEAM, ...args, "--store", doctored], { cwd });

    const text = await replay();
    expect(text.code).toBe(5);
    expect(text.stdout).toContain("✗ Replay differs from the recording at seq 8 in sub-agent session r1\n");
    expect(text.stdout).toContain(`  recorded: {\n    "type": "tool_result",\n    "data": {\n`);
    expect(text.stdout).toContain(`"result": "${long}"`); // in full, not cut
    expect(text.stdout).toContain(`  replayed: {\n    "type": "tool_result",\n`);
    expect(text.stdout).toContain('"result": "found milk"');
    expect(text.stdout).not.toContain("at seq 8\n"); // the root session matches

    const data = json<{ matches: boolean; differences: unknown[] }>(await replay("--json"));
    expect(data.matches).toBe(false);
    expect(data.differences).toEqual([
      {
        path: "r1",
        seq: 8,
        recorded: { type: "tool_result", data: { toolCallId: "l1", toolName: "lookup", result: long, isError: false } },
        replayed: {
          type: "tool_result",
          data: { toolCallId: "l1", toolName: "lookup", result: "found milk", isError: false },
        },
        recordedEvents: 12,
        replayedEvents: 12,
      },
    ]);
  });
});
