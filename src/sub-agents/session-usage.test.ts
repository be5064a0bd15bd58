import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { MemoryStore } from "../store/memory-store.js";
import type { SessionStore } from "../store/session-store.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { tool } from "../tools/tool.js";
import { childSessionsOf, sessionUsage, UNKNOWN_MODEL } from "./session-usage.js";
import { agentAsTool } from "./sub-agent.js";
import { TEAM_USAGE, teamAgent, u, usage } from "./test-support/test-fixtures.js";

const sqlite = new SqliteStore({ path: ":memory:" });
afterAll(() => sqlite.close());

/** Requests and tokens of one model (`byModel`: a call belongs to no model). */
const tokens = (input: number, output: number, requests: number) => usage({ requests, input, output, toolCalls: 0 });

describe.each<[string, () => SessionStore]>([
  ["MemoryStore", () => new MemoryStore()],
  ["SqliteStore", () => sqlite],
])("sessionUsage with a %s", (storeName, makeStore) => {
  it("counts each child exactly once in the parent's total, a failed one too, and equals the run's usage", async () => {
    const store = makeStore();
    const sessionId = `team-${storeName}`;
    const result = await teamAgent().run("go", { sessionId, store });

    const report = await sessionUsage(store, sessionId);
    expect(report.own).toEqual(TEAM_USAGE.lead);
    expect(report.total).toEqual(TEAM_USAGE.total);
    expect(report.total).toEqual(result.usage);
    expect(report.children.map((child) => [child.sessionId, child.total])).toEqual([
      [`${sessionId}/c1`, TEAM_USAGE.checker],
      [`${sessionId}/r1`, TEAM_USAGE.researcher],
    ]);
    expect(report.byModel).toEqual({
      "scripted:gpt-4o": tokens(30, 10, 2),
      "scripted:gpt-4o-mini": tokens(13, 4, 3),
    });
  });

  it("shows a child's own session with its own usage only", async () => {
    const store = makeStore();
    const sessionId = `own-${storeName}`;
    await teamAgent().run("go", { sessionId, store });
    const researcher = await sessionUsage(store, `${sessionId}/r1`);
    expect(researcher).toMatchObject({ own: TEAM_USAGE.researcher, total: TEAM_USAGE.researcher, children: [] });
    expect((await sessionUsage(store, `${sessionId}/c1`)).total).toEqual(TEAM_USAGE.checker);
  });

  it("counts a child cut short by its tool's timeout once, though the parent's log reports nothing of it", async () => {
    const store = makeStore();
    const sessionId = `timeout-${storeName}`;
    const slow = tool({
      name: "slow",
      description: "Wait",
      input: z.object({}),
      execute: async (_args, context) => {
        await sleep(60_000, undefined, { signal: context.signal });
        return "late";
      },
    });
    const child = new Agent({
      name: "waiter",
      model: new ScriptedModel([{ toolCalls: [{ id: "s1", name: "slow" }], usage: u(7, 3) }]),
      tools: [slow],
    });
    const lead = new Agent({
      name: "lead",
      model: new ScriptedModel([
        { toolCalls: [{ id: "t1", name: "ask", args: { prompt: "wait" } }], usage: u(10, 5) },
        { text: "gave up", usage: u(20, 5) },
      ]),
      tools: [slow, agentAsTool(child, { name: "ask", description: "Ask", timeoutMs: 100 })],
    });
    const result = await lead.run("go", { sessionId, store });
    const parentLog = await store.read(sessionId);
    expect(parentLog.some((event) => event.type.startsWith("subagent_"))).toBe(false);

    const report = await sessionUsage(store, sessionId);
    expect(report.children.map((item) => item.sessionId)).toEqual([`${sessionId}/t1`]);
    expect(report.total).toEqual(usage({ requests: 3, input: 37, output: 13, toolCalls: 2 }));
    expect(report.total).toEqual(result.usage);
  });

  it("counts a grandchild once: in its parent's total and, through it, in the root's", async () => {
    const store = makeStore();
    const sessionId = `chain-${storeName}`;
    const level = (name: string, below: Agent | undefined, input: number) =>
      new Agent({
        name,
        model: new ScriptedModel(
          below
            ? [
                { toolCalls: [{ id: `to-${name}`, name: "nest", args: { prompt: "deeper" } }], usage: u(input, 1) },
                { text: `${name} done`, usage: u(input, 1) },
              ]
            : [{ text: `${name} done`, usage: u(input, 1) }],
        ),
        tools: below ? [agentAsTool(below, { name: "nest", description: "Go deeper" })] : [],
      });
    const root = level("root", level("middle", level("leaf", undefined, 1), 10), 100);
    const result = await root.run("go", { sessionId, store });

    const report = await sessionUsage(store, sessionId);
    expect(report.total).toEqual(result.usage);
    expect(report.total).toEqual(usage({ requests: 5, input: 221, output: 5, toolCalls: 2 }));
    const [middle] = report.children;
    expect(middle?.sessionId).toBe(`${sessionId}/to-root`);
    expect(middle?.total).toEqual(usage({ requests: 3, input: 21, output: 3, toolCalls: 1 }));
    expect(middle?.children.map((leaf) => [leaf.sessionId, leaf.total])).toEqual([
      [`${sessionId}/to-root/to-middle`, usage({ requests: 1, input: 1, output: 1, toolCalls: 0 })],
    ]);
    expect(await childSessionsOf(store, sessionId)).toEqual([`${sessionId}/to-root`]);
  });

  it("counts what the parent's log reported for a child whose session the store no longer holds", async () => {
    const store = makeStore();
    const sessionId = `gone-${storeName}`;
    await teamAgent().run("go", { sessionId, store });
    await store.delete(`${sessionId}/r1`);
    const report = await sessionUsage(store, sessionId);
    expect(report.total).toEqual(TEAM_USAGE.total);
    expect(report.children.map((child) => child.sessionId)).toEqual([`${sessionId}/c1`]);
    expect(report.byModel[UNKNOWN_MODEL]).toEqual(tokens(7, 3, 2));
  });

  it("counts in a fork the children its copied log reports, and no session merely named like a child", async () => {
    const store = makeStore();
    const sessionId = `forked-${storeName}`;
    await teamAgent().run("go", { sessionId, store });
    const last = (await store.get(sessionId))?.lastSeq ?? 0;
    const fork = await store.fork(sessionId, { atSeq: last, newSessionId: `${sessionId}-copy` });
    expect((await sessionUsage(store, fork)).total).toEqual(TEAM_USAGE.total);

    // A session whose id starts like a child's but that no run of this session started.
    const stranger = new Agent({ name: "stranger", model: new ScriptedModel([{ text: "hi", usage: u(500, 500) }]) });
    await stranger.run("hi", { sessionId: `${sessionId}/not-a-child`, store });
    expect((await sessionUsage(store, sessionId)).total).toEqual(TEAM_USAGE.total);
  });
});
