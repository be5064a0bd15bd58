import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { ContextUpdate } from "../context/context-update.js";
import { FunctionModel } from "../models/function-model.js";
import { ScriptedModel } from "../models/scripted-model.js";
import type { RunContext } from "../session/run-context.js";
import { tool } from "../tools/tool.js";
import { toolContent } from "../tools/tool-content.js";
import { connectMcp } from "./connect-mcp.js";
import { serveMcpHttp } from "./serve-mcp.js";
import { nousStdioServer, repositoryRoot } from "./test-support/test-servers.js";

type Deps = { calls: number };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function textOf(result: unknown): string {
  return ((result as { content: unknown }).content as { type: string; text?: string }[])
    .map((part) => part.text ?? "")
    .join("");
}

describe("serveMcpStdio, driven by the SDK's Client", () => {
  it("lists the tools with exported JSON Schemas and answers calls, failures and the agent tool", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", nousStdioServer],
        cwd: repositoryRoot,
        stderr: "ignore",
      }),
    );
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toMatchObject({ name: "nous-fixture", version: "1.0.0" });
    const { tools } = await client.listTools();
    expect(tools.map((item) => item.name)).toEqual(["add", "fail", "echo_agent"]);
    expect(tools[0]?.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(sum.structuredContent).toEqual({ sum: 5 });
    expect(JSON.parse(textOf(sum))).toEqual({ sum: 5 });
    const failed = await client.callTool({ name: "fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain("this tool always fails");
    const invalid = await client.callTool({ name: "add", arguments: { a: "x" } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/Invalid arguments for tool "add"/);
    const answer = await client.callTool({ name: "echo_agent", arguments: { prompt: "hello agent" } });
    expect(textOf(answer)).toBe("The agent heard: hello agent");
    await expect(client.callTool({ name: "missing", arguments: {} })).rejects.toThrow(/Unknown tool "missing"/);
  });
});

describe("serveMcpHttp", () => {
  it("serves tools and an agent over Streamable HTTP on loopback, and honours cancellation", async () => {
    let sawAbort = false;
    let started: () => void = () => {};
    const startedPromise = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = tool({
      name: "slow",
      description: "Waits until cancelled",
      input: z.object({}),
      execute: (_args, context: RunContext<Deps>) =>
        new Promise<string>((resolve) => {
          started();
          context.signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve("aborted");
          });
        }),
    });
    const count = tool({
      name: "count",
      description: "Counts calls in the server's deps",
      input: z.object({}),
      execute: (_args, context: RunContext<Deps>) => ({
        result: { calls: context.deps.calls + 1 },
        update: ContextUpdate.new<{ calls: number }>().set("calls", context.deps.calls + 1),
      }),
    });
    const agent = new Agent<{ calls: number }>({
      name: "helper",
      model: new FunctionModel(() => ({ text: "agent answer" })),
    });
    const server = await serveMcpHttp({
      name: "nous-http",
      version: "2.0.0",
      tools: [slow, count],
      agent,
      deps: { calls: 0 },
    });
    cleanups.push(() => server.close());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((item) => item.name)).toEqual(["slow", "count", "helper"]);
    expect((await client.callTool({ name: "count", arguments: {} })).structuredContent).toEqual({ calls: 1 });
    expect((await client.callTool({ name: "count", arguments: {} })).structuredContent).toEqual({ calls: 2 });
    expect(textOf(await client.callTool({ name: "helper", arguments: { prompt: "hi" } }))).toBe("agent answer");

    const controller = new AbortController();
    const call = client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal });
    const rejected = expect(call).rejects.toThrow();
    await startedPromise;
    controller.abort("stop");
    await rejected;
    await expect.poll(() => sawAbort).toBe(true);
  });

  it("refuses a request whose Host header is not the server's own (DNS rebinding)", async () => {
    const server = await serveMcpHttp({
      name: "guarded",
      version: "1.0.0",
      tools: [tool({ name: "noop", description: "", input: z.object({}), execute: () => "ok" })],
    });
    cleanups.push(() => server.close());
    const url = new URL(server.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      });
      const outgoing = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: {
            host: "evil.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });
    expect(status).toBe(403);
  });

  it("round-trips: connectMcp drives a Nous MCP server from inside another agent's run", async () => {
    const inner = new Agent({ name: "inner", model: new FunctionModel(() => ({ text: "inner says hi" })) });
    const server = await serveMcpHttp({ name: "inner-server", version: "1.0.0", agent: inner });
    cleanups.push(() => server.close());
    const connection = await connectMcp({ transport: { type: "http", url: server.url }, prefix: "remote" });
    cleanups.push(() => connection.close());
    const model = new ScriptedModel([
      { toolCalls: [{ name: "remote_inner", args: { prompt: "hello" } }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: await connection.tools() }).run("ask inner");
    const toolResult = result.log.find((event) => event.type === "tool_result")?.data as { result: unknown };
    expect(toolResult.result).toBe("inner says hi");
  });
  it("round-trips images: a served tool's toolContent reaches another agent as content parts with binaryContent include", async () => {
    const chart = tool({
      name: "chart",
      description: "A chart",
      input: z.object({}),
      execute: () =>
        toolContent([{ type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" }], { result: "A chart" }),
    });
    const server = await serveMcpHttp({ name: "charts", version: "1.0.0", tools: [chart] });
    cleanups.push(() => server.close());
    const connection = await connectMcp({ transport: { type: "http", url: server.url }, binaryContent: "include" });
    cleanups.push(() => connection.close());
    const model = new ScriptedModel([{ toolCalls: [{ name: "chart", args: {} }] }, { text: "done" }]);
    const result = await new Agent({ model, tools: await connection.tools() }).run("chart");
    const recorded = result.log.find((event) => event.type === "tool_result")?.data as Record<string, unknown>;
    expect(recorded.content).toEqual([{ type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" }]);
    expect(recorded.result).toEqual({
      content: [
        { type: "text", text: "A chart" },
        { type: "image", mimeType: "image/png", bytes: 8 },
      ],
    });
  });
});
