/**
 * The inspector decides approvals only for sessions its agent can resume: a session another agent
 * ran is refused before the decision is recorded (the built-in assistant would use it up on
 * "Unknown tool" calls and mark the session completed).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createBuiltinAssistant } from "../cli/builtin-assistant.js";
import { MemoryStore, pendingApprovalsOf } from "../index.js";
import { startInspector } from "./server.js";
import { recordSessions, resumeShop, shopAgent } from "./test-support/sessions.js";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function inspectorFor(
  store: MemoryStore,
  agent: Parameters<typeof startInspector>[0]["agent"],
  resume: (id: string) => Promise<void>,
) {
  const inspector = await startInspector({ store, port: 0, token: false, agent, resume });
  closing.push(() => inspector.close());
  const base = inspector.url.replace(/\/$/, "");
  return (sessionId: string, toolCallId: string, argsHash: string) =>
    fetch(`${base}/api/sessions/${sessionId}/approvals/${toolCallId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", argsHash }),
    });
}

describe("inspector approvals and the session's agent", () => {
  it("approving via the API without the agent that ran the session (the built-in assistant) is refused (409) and leaves the session unchanged", async () => {
    const store = new MemoryStore();
    const shop = await recordSessions(store);
    const before = await store.read("shop");
    const [pending] = pendingApprovalsOf("shop", before);
    const resumed: string[] = [];
    const approve = await inspectorFor(store, createBuiltinAssistant(), async (id) => {
      resumed.push(id);
    });
    const refused = await approve("shop", "c3", pending?.argsHash ?? "");
    expect(refused.status).toBe(409);
    const { error } = (await refused.json()) as { error: string };
    expect(error).toMatch(
      /^Session "shop" was run by agent "shopper" \(definition [0-9a-f]{12}\), but this inspector resumes sessions with agent "nous-assistant"/,
    );
    expect(error).toContain("nous inspect --agent FILE");
    expect(error).toContain("Nothing was recorded.");
    expect(await store.read("shop")).toEqual(before);
    expect(resumed).toEqual([]);
    expect((await store.get("shop"))?.status).toBe("awaiting_approval");

    // Started with the shop's agent, the same decision is recorded and the run resumes.
    const approveWithShop = await inspectorFor(store, shopAgent(), (id) => resumeShop(shop, store, id));
    const decided = await approveWithShop("shop", "c3", pending?.argsHash ?? "");
    expect(await decided.json()).toEqual({ decided: "c3", remaining: 0, resumed: true });
  });
});
