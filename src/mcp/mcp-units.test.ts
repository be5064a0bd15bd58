import { describe, expect, it } from "vitest";
import { isToolContent, type ToolContent, toolContent } from "../tools/tool-content.js";
import { definitionHash } from "./definition-hash.js";
import { mapCallToolResult } from "./map-result.js";
import { McpToolError } from "./mcp-errors.js";
import { scrubbedEnvironment } from "./stdio-environment.js";
import { ToolNamer } from "./tool-names.js";

describe("ToolNamer", () => {
  it("keeps safe names, replaces unsafe characters, shortens long names and never repeats a name", () => {
    const namer = new ToolNamer("gh");
    expect(namer.nameFor("list_issues")).toBe("gh_list_issues");
    expect(namer.nameFor("repo.get")).toBe("gh_repo_get");
    const clash = namer.nameFor("repo/get");
    expect(clash).not.toBe("gh_repo_get");
    expect(clash).toMatch(/^gh_repo_get_[0-9a-f]{8}$/);
    const long = namer.nameFor("x".repeat(100));
    expect(long).toHaveLength(64);
    expect(namer.nameFor("repo.get")).toBe("gh_repo_get");
    expect(() => new ToolNamer("bad prefix")).toThrow(/prefix/);
  });
});

describe("definitionHash", () => {
  it("ignores key order and changes with the description or schema", () => {
    const base = {
      name: "t",
      description: "d",
      inputSchema: { type: "object", properties: { a: { type: "string" } } },
    };
    const reordered = {
      inputSchema: { properties: { a: { type: "string" } }, type: "object" },
      description: "d",
      name: "t",
    };
    expect(definitionHash(base)).toBe(definitionHash(reordered));
    expect(definitionHash({ ...base, description: "other" })).not.toBe(definitionHash(base));
  });
});

describe("mapCallToolResult", () => {
  it("maps text, structured content, resources and errors", () => {
    expect(
      mapCallToolResult("t", {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\n\nb");
    expect(
      mapCallToolResult("t", { content: [{ type: "text", text: '{"x":1}' }], structuredContent: { x: 1 } }),
    ).toEqual({ x: 1 });
    expect(
      mapCallToolResult(
        "t",
        {
          content: [
            { type: "resource", resource: { uri: "file:///a", mimeType: "text/plain", text: "hello" } },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ],
        },
        "include",
      ),
    ).toEqual(
      toolContent([{ type: "image", data: "AAAA", mediaType: "image/png" }], {
        result: {
          content: [
            { type: "resource", uri: "file:///a", mimeType: "text/plain", text: "hello" },
            { type: "image", mimeType: "image/png", bytes: 3 },
          ],
        },
      }),
    );
    const withBlob = mapCallToolResult(
      "t",
      {
        content: [
          { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///docs/a.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
        ],
      },
      "include",
    );
    expect(isToolContent(withBlob)).toBe(true);
    expect((withBlob as ToolContent).content).toEqual([
      { type: "audio", data: "UklGRg==", mediaType: "audio/wav" },
      { type: "file", data: "JVBERi0=", mediaType: "application/pdf", filename: "a.pdf" },
    ]);
    // Described (the default): no bytes reach the model.
    expect(
      isToolContent(mapCallToolResult("t", { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] })),
    ).toBe(false);
    expect(() => mapCallToolResult("t", { content: [{ type: "text", text: "nope" }], isError: true })).toThrow(
      McpToolError,
    );
  });
});

describe("scrubbedEnvironment", () => {
  it("keeps PATH, HOME and the allow-list, adds env, and blanks the SDK's other defaults", () => {
    const parent = { PATH: "/bin", HOME: "/home/x", USER: "x", OPENAI_API_KEY: "sk", KEEP: "k", FN: "() { evil; }" };
    const env = scrubbedEnvironment(["KEEP", "FN"], { EXTRA: "e" }, parent);
    const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
    expect(defined).toEqual({ PATH: "/bin", HOME: "/home/x", KEEP: "k", EXTRA: "e" });
    expect("USER" in env && env.USER === undefined).toBe(true);
  });
});
