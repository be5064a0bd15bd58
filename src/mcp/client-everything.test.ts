import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { CancelledError } from "../errors/run-errors.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { connectMcp, type McpConnection } from "./connect-mcp.js";
import { everythingBin, startEverythingHttp } from "./test-support/test-servers.js";

const stdio = { type: "stdio", command: process.execPath, args: [everythingBin, "stdio"], stderr: "ignore" } as const;

function toolResults(log: readonly { type: string; data: unknown }[]) {
  return log
    .filter((event) => event.type === "tool_result")
    .map((event) => event.data as { toolName: string; result: unknown; isError: boolean });
}

describe("connectMcp with server-everything over stdio", () => {
  let everything: McpConnection;
  beforeAll(async () => {
    everything = await connectMcp({ transport: stdio, prefix: "ev" });
  });
  afterAll(async () => {
    await everything.close();
  });

  it("lists the server's tools with provider-safe prefixed names and the server's schema unchanged", async () => {
    const tools = await everything.tools();
    const names = tools.map((item) => item.name);
    expect(names).toEqual(expect.arrayContaining(["ev_echo", "ev_get-sum", "ev_trigger-long-running-operation"]));
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const raw = await everything.client.listTools();
    const echo = tools.find((item) => item.name === "ev_echo");
    expect(echo?.mcp.name).toBe("echo");
    expect(echo?.inputSchema).toEqual(raw.tools.find((item) => item.name === "echo")?.inputSchema);
  });

  it("calls tools through an agent run and maps text, structured and image results", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "ev_echo", args: { message: "hi there" } },
          { name: "ev_get-sum", args: { a: 2, b: 40 } },
          { name: "ev_get-structured-content", args: { location: "New York" } },
          { name: "ev_get-tiny-image", args: {} },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({ model, tools: await everything.tools() });
    const result = await agent.run("use the tools");
    expect(result.output).toBe("done");
    const [echo, sum, structured, image] = toolResults(result.log);
    expect(echo).toMatchObject({ toolName: "ev_echo", result: "Echo: hi there", isError: false });
    expect(sum?.isError).toBe(false);
    expect(String(sum?.result)).toContain("42");
    expect(structured).toMatchObject({ isError: false, result: { temperature: expect.any(Number) } });
    const imageResult = image?.result as { content: { type: string; mimeType?: string; bytes?: number }[] };
    const picture = imageResult.content.find((part) => part.type === "image");
    expect(picture).toMatchObject({ mimeType: "image/png", bytes: expect.any(Number) });
    expect(picture).not.toHaveProperty("data");
    // What the model saw in its second request is what the log holds.
    const toolMessages = model.requests[1]?.messages.filter((message) => message.role === "tool");
    expect(toolMessages?.map((message) => message.role === "tool" && message.result)).toContain("Echo: hi there");
  });

  it("rejects invalid arguments before calling the server; the model sees the validation error", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "ev_get-sum", args: { a: "two" } }] }, { text: "ok" }]);
    const result = await new Agent({ model, tools: await everything.tools() }).run("add");
    const [sum] = toolResults(result.log);
    expect(sum?.isError).toBe(true);
    expect(String(sum?.result)).toMatch(/Invalid arguments for tool "ev_get-sum"/);
  });

  it("cancels a long-running tool when the run is aborted: CancelledError, and notifications/cancelled is sent", async () => {
    const transport = everything.client.transport;
    if (transport === undefined) throw new Error("no transport");
    const sent: JSONRPCMessage[] = [];
    const send = transport.send.bind(transport);
    const controller = new AbortController();
    transport.send = async (message, options) => {
      sent.push(message);
      if ("method" in message && message.method === "tools/call") setTimeout(() => controller.abort("user"), 300);
      return send(message, options);
    };
    try {
      const model = new ScriptedModel([
        { toolCalls: [{ name: "ev_trigger-long-running-operation", args: { duration: 60, steps: 60 } }] },
        { text: "never" },
      ]);
      const agent = new Agent({ model, tools: await everything.tools() });
      await expect(agent.run("wait", { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
      const call = sent.find((message) => "method" in message && message.method === "tools/call") as { id: number };
      await expect
        .poll(() => sent.find((message) => "method" in message && message.method === "notifications/cancelled"))
        .toMatchObject({
          params: { requestId: call.id },
        });
      expect(model.unusedSteps()).toBe(1);
    } finally {
      transport.send = send;
    }
    // The connection stays usable after a cancelled call.
    const echo = (await everything.tools()).find((item) => item.name === "ev_echo");
    const { RunContext } = await import("../session/run-context.js");
    await expect(echo?.execute({ message: "still here" }, RunContext.create({ deps: {} }))).resolves.toBe(
      "Echo: still here",
    );
  });
});

describe("connectMcp per-call timeout", () => {
  it("turns a request that outlives timeoutMs into a tool error the model sees", async () => {
    const everything = await connectMcp({ transport: stdio, timeoutMs: 500 });
    try {
      const model = new ScriptedModel([
        { toolCalls: [{ name: "trigger-long-running-operation", args: { duration: 20, steps: 1 } }] },
        { text: "gave up" },
      ]);
      const result = await new Agent({ model, tools: await everything.tools() }).run("wait");
      expect(result.output).toBe("gave up");
      const [call] = toolResults(result.log);
      expect(call).toMatchObject({ isError: true });
      expect(String(call?.result)).toMatch(/timed out after 500 ms/);
    } finally {
      await everything.close();
    }
  });
});

describe("connectMcp with server-everything over Streamable HTTP", () => {
  it("lists and calls tools through an agent run", async () => {
    const server = await startEverythingHttp();
    try {
      const everything = await connectMcp({ transport: { type: "http", url: server.url } });
      try {
        expect(everything.serverInfo?.name).toBe("mcp-servers/everything");
        const model = new ScriptedModel([
          {
            toolCalls: [
              { name: "echo", args: { message: "over http" } },
              { name: "get-sum", args: { a: 1, b: 2 } },
            ],
          },
          { text: "done" },
        ]);
        const result = await new Agent({ model, tools: await everything.tools() }).run("go");
        const [echo, sum] = toolResults(result.log);
        expect(echo).toMatchObject({ result: "Echo: over http", isError: false });
        expect(String(sum?.result)).toContain("3");
      } finally {
        await everything.close();
      }
    } finally {
      await server.stop();
    }
  });
});
