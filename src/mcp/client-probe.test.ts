import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { CancelledError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { type ConnectMcpOptions, connectMcp, type McpConnection, type ToolsChangedEvent } from "./connect-mcp.js";
import { probeServer, tsxFixture } from "./test-support/test-servers.js";

const open: McpConnection[] = [];
async function probe(options: Partial<ConnectMcpOptions> & { env?: Record<string, string>; allowEnv?: string[] } = {}) {
  const { env, allowEnv, ...rest } = options;
  const connection = await connectMcp({
    transport: tsxFixture(probeServer, {
      stderr: "ignore",
      ...(env ? { env } : {}),
      ...(allowEnv ? { allowEnv } : {}),
    }),
    ...rest,
  });
  open.push(connection);
  return connection;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

function results(log: readonly { type: string; data: unknown }[]) {
  return log
    .filter((event) => event.type === "tool_result")
    .map((event) => event.data as { toolName: string; result: unknown; isError: boolean });
}

describe("stdio environment scrubbing", () => {
  it("gives the server PATH, HOME, allowed and given variables, never the parent's secrets", async () => {
    process.env.NOUS_MCP_TEST_SECRET_API_KEY = "sk-must-not-leak";
    process.env.NOUS_MCP_TEST_ALLOWED = "allowed-value";
    try {
      const connection = await probe({ env: { GIVEN_VARIABLE: "given" }, allowEnv: ["NOUS_MCP_TEST_ALLOWED"] });
      const model = new ScriptedModel([{ toolCalls: [{ name: "report_env" }] }, { text: "ok" }]);
      const result = await new Agent({ model, tools: await connection.tools() }).run("env?");
      const [report] = results(result.log);
      const seen = JSON.parse(String(report?.result)) as Record<string, string>;
      expect(seen.NOUS_MCP_TEST_SECRET_API_KEY).toBeUndefined();
      expect(JSON.stringify(seen)).not.toContain("sk-must-not-leak");
      expect(seen.NOUS_MCP_TEST_ALLOWED).toBe("allowed-value");
      expect(seen.GIVEN_VARIABLE).toBe("given");
      expect(seen.PATH).toBe(process.env.PATH);
      for (const key of Object.keys(process.env)) {
        if (!["PATH", "HOME", "NOUS_MCP_TEST_ALLOWED"].includes(key)) expect.soft(seen[key]).not.toBe(process.env[key]);
      }
    } finally {
      delete process.env.NOUS_MCP_TEST_SECRET_API_KEY;
      delete process.env.NOUS_MCP_TEST_ALLOWED;
    }
  });
});

describe("cancellation reaches the server", () => {
  it("aborting the run cancels the MCP request on the server", async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), "nous-mcp-")), "probe.log");
    const connection = await probe({ env: { PROBE_LOG: logFile } });
    const read = () => {
      try {
        return readFileSync(logFile, "utf8");
      } catch {
        return "";
      }
    };
    const controller = new AbortController();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "wait_for_cancel", args: { label: "one" } }] },
      { text: "x" },
    ]);
    const run = new Agent({ model, tools: await connection.tools() }).run("wait", { signal: controller.signal });
    const rejected = expect(run).rejects.toBeInstanceOf(CancelledError);
    await expect.poll(read, { timeout: 20_000 }).toContain("started one");
    controller.abort("stop");
    await rejected;
    await expect.poll(read, { timeout: 20_000 }).toContain("cancelled one");
  });
});

describe("tools/list_changed", () => {
  it("re-reads the list, reports the change, and requires approval again for a changed tool", async () => {
    const events: ToolsChangedEvent[] = [];
    const connection = await probe({ needsApproval: "on-change", onToolsChanged: (event) => events.push(event) });
    const approvals: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "greet", args: { name: "Ada" } }] },
      { toolCalls: [{ name: "greet", args: { name: "Bob" } }] },
      { toolCalls: [{ name: "change_greet" }] },
      { toolCalls: [{ name: "greet", args: { name: "Cy" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: await connection.tools(),
      approvalHandler: async (call) => {
        approvals.push(call.toolName);
        return { type: "approve" };
      },
    });
    const before = (await connection.tools()).find((item) => item.name === "greet");
    const result = await agent.run("greet people");
    // greet: approved once (first use), not again for Bob; change_greet: first use; greet again after its change.
    expect(approvals).toEqual(["greet", "change_greet", "greet"]);
    const [ada, bob, changed, cy] = results(result.log);
    expect(ada?.result).toBe("Hello, Ada!");
    expect(bob?.result).toBe("Hello, Bob!");
    expect(changed?.result).toBe("greet changed");
    expect(cy?.result).toBe("HELLO, CY!");
    expect(events.at(-1)).toMatchObject({ changed: ["greet"], added: [], removed: [] });
    const after = (await connection.tools()).find((item) => item.name === "greet");
    expect(after?.description).toBe("Greets someone loudly");
    expect(after?.mcp.definitionHash).not.toBe(before?.mcp.definitionHash);
  });

  it("pauses the run for approval when a changed tool is called without an approval handler", async () => {
    const approved = new Map<string, string>();
    const connection = await probe({ needsApproval: "on-change", approvedDefinitions: approved });
    const greet = (await connection.tools()).find((item) => item.name === "greet");
    approved.set("greet", greet?.mcp.definitionHash ?? "");
    approved.set(
      "change_greet",
      (await connection.tools()).find((item) => item.name === "change_greet")?.mcp.definitionHash ?? "",
    );
    const tools = await connection.tools();
    const first = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "greet", args: { name: "Ada" } }, { name: "change_greet" }] },
        { text: "ok" },
      ]),
      tools,
    }).run("pre-approved");
    expect(results(first.log).map((item) => item.isError)).toEqual([false, false]);
    await expect
      .poll(async () => (await connection.tools()).find((item) => item.name === "greet")?.description)
      .toBe("Greets someone loudly");
    const second = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "greet", args: { name: "Bob" } }] }]),
      tools,
    });
    await expect(second.run("after the change")).rejects.toMatchObject({ code: "approval_pending" });
  });
});

describe("tool names", () => {
  it("renames a tool whose MCP name is not provider-safe and still calls it by its MCP name", async () => {
    const connection = await probe({ prefix: "probe" });
    const dotted = (await connection.tools()).find((item) => item.mcp.name === "v1.dotted/name");
    expect(dotted?.name).toBe("probe_v1_dotted_name");
    const model = new ScriptedModel([{ toolCalls: [{ name: "probe_v1_dotted_name" }] }, { text: "ok" }]);
    const result = await new Agent({ model, tools: await connection.tools() }).run("call it");
    expect(results(result.log)[0]).toMatchObject({ result: "dotted", isError: false });
  });
});
