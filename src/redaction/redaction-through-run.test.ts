import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { decideApproval, listPendingApprovals } from "../approvals/approvals.js";
import { ApprovalPendingError } from "../errors/run-errors.js";
import { getLogger } from "../logging/logger.js";
import { MemoryStore } from "../store/memory-store.js";
import { captureLogger } from "../test-support/capture-logger.js";
import { ScriptedModel } from "../testing.js";
import { tool } from "../tools/tool.js";
import { secretPlaceholder } from "./placeholder.js";
import { type Secret, secret } from "./secret.js";
import { forgetSecretsForTesting, registerSecret } from "./secret-registry.js";

afterEach(() => forgetSecretsForTesting());

describe("redaction through a run", () => {
  it("keeps a secret() deps value live: the tool reveals it, the log never holds it", async () => {
    const seen: string[] = [];
    const useToken = tool<z.ZodObject<Record<string, never>>, string, { token: Secret<string>; plan: string }>({
      name: "use_token",
      description: "Uses the token",
      input: z.object({}),
      execute: (_args, { deps }) => {
        seen.push(deps.token.reveal());
        return `used ${deps.token.reveal()}`;
      },
    });
    const agent = new Agent<{ token: Secret<string>; plan: string }>({
      model: new ScriptedModel([{ toolCalls: [{ name: "use_token", args: {} }] }, { text: "ok" }]),
      tools: [useToken],
    });
    const store = new MemoryStore();
    const deps = { token: secret("live-token-123456"), plan: "pro" };
    const result = await agent.run("go", { deps, store, sessionId: "s" });
    expect(seen).toEqual(["live-token-123456"]);
    const stored = JSON.stringify(await store.read("s"));
    expect(stored).not.toContain("live-token-123456");
    expect(stored).toContain(`used ${secretPlaceholder("live-token-123456")}`);
    expect(stored).toContain('"plan"'); // the JSON deps are recorded; the marked one is live, never persisted
    expect(result.deps.token.reveal()).toBe("live-token-123456");
  });

  it("redacts an approval decided with edited arguments holding a secret", async () => {
    registerSecret("edited-secret-98765");
    const send = tool({
      name: "send",
      description: "Sends a note",
      input: z.object({ note: z.string() }),
      needsApproval: true,
      execute: ({ note }) => note.length,
    });
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: "n1", name: "send", args: { note: "hi" } }] }, { text: "sent" }]),
      tools: [send],
    });
    const store = new MemoryStore();
    await expect(agent.run("send it", { sessionId: "n", store })).rejects.toThrow(ApprovalPendingError);
    const [approval] = await listPendingApprovals(store);
    if (approval === undefined) throw new Error("no pending approval");
    await decideApproval(store, approval, { type: "edit", args: { note: "edited-secret-98765" } });
    const decided = (await store.read("n")).find((event) => event.type === "approval_decided");
    expect(decided?.data).toEqual({
      toolCallId: "n1",
      approved: true,
      args: { note: secretPlaceholder("edited-secret-98765") },
    });
  });

  it("redacts what the logger is given, message and details", () => {
    const logged = captureLogger();
    registerSecret("logger-secret-24680");
    getLogger().warn("connecting with logger-secret-24680", { nested: { key: "logger-secret-24680" } });
    expect(logged).toEqual([
      {
        level: "warn",
        message: `connecting with ${secretPlaceholder("logger-secret-24680")}`,
        details: { nested: { key: secretPlaceholder("logger-secret-24680") } },
      },
    ]);
  });

  it("redacts a secret split across streamed text deltas, and leaves text without one alone", async () => {
    registerSecret("split-secret-13579");
    const text = "before split-secret-13579 after, and some more text to stream";
    const agent = new Agent({ model: new ScriptedModel([{ text }]) });
    let streamed = "";
    for await (const event of agent.stream("go"))
      if (event.kind === "delta" && event.type === "text-delta") streamed += event.text;
    expect(streamed).toBe(text.replace("split-secret-13579", secretPlaceholder("split-secret-13579")));
    forgetSecretsForTesting();
    let plain = "";
    for await (const event of new Agent({ model: new ScriptedModel([{ text }]) }).stream("go")) {
      if (event.kind === "delta" && event.type === "text-delta") plain += event.text;
    }
    expect(plain).toBe(text);
  });
});
