import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../agent/agent.js";
import { ScriptedModel } from "../models/scripted-model.js";
import { connectMcp, type McpConnection } from "./connect-mcp.js";
import { filesystemBin } from "./test-support/test-servers.js";

describe("connectMcp with server-filesystem over stdio", () => {
  let base: string;
  let root: string;
  let outside: string;
  let filesystem: McpConnection;
  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "nous-mcp-fs-")));
    root = join(base, "root");
    outside = join(base, "outside");
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(join(root, "notes.txt"), "inside the root");
    writeFileSync(join(outside, "secret.txt"), "outside the root");
    filesystem = await connectMcp({
      transport: { type: "stdio", command: process.execPath, args: [filesystemBin, root], stderr: "ignore" },
      prefix: "fs",
      name: "files",
    });
  });
  afterAll(async () => {
    await filesystem.close();
    rmSync(base, { recursive: true, force: true });
  });

  it("reads a file inside the root and maps the server's refusal outside it to a tool error", async () => {
    const tools = await filesystem.tools();
    expect(tools.map((item) => item.name)).toContain("fs_read_text_file");
    expect(tools[0]?.mcp.server).toBe("files");
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "fs_read_text_file", args: { path: join(root, "notes.txt") } },
          { name: "fs_read_text_file", args: { path: join(outside, "secret.txt") } },
        ],
      },
      { text: "read what I could" },
    ]);
    const result = await new Agent({ model, tools }).run("read both files");
    expect(result.output).toBe("read what I could");
    const [inside, refused] = result.log
      .filter((event) => event.type === "tool_result")
      .map((event) => event.data as { result: unknown; isError: boolean });
    expect(inside).toMatchObject({ isError: false });
    expect(JSON.stringify(inside?.result)).toContain("inside the root");
    expect(refused?.isError).toBe(true);
    expect(String(refused?.result)).toMatch(/access denied|outside allowed/i);
    expect(String(refused?.result)).not.toContain("outside the root");
    // The model's next request carried the refusal as an error result.
    const toolMessages = model.requests[1]?.messages.filter((message) => message.role === "tool") ?? [];
    expect(toolMessages.map((message) => message.role === "tool" && message.isError)).toEqual([false, true]);
  });
});
