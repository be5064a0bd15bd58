import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph } from "../test-support/import-graph.js";

const source = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the main entry's import graph", () => {
  const { modules, packages } = importGraph(join(source, "index.ts"), source);

  it("is what the package loads (sanity check of the walk)", () => {
    expect(modules.has("agent/agent.ts")).toBe(true);
    expect(modules.has("models/providers/anthropic.ts")).toBe(true);
    expect(packages.has("@cfworker/json-schema")).toBe(true);
  });

  it("does not load zod: provider answers are checked by shared/wire-check.ts, the sub-agent input is hand-written", () => {
    expect(packages.has("zod")).toBe(false);
  });

  it("loads the SSE parser and each provider's response and stream code only on a first request", () => {
    expect(packages.has("eventsource-parser")).toBe(false);
    const wireCode = [...modules].filter(
      (name) =>
        /^models\/providers\/.*-(response|stream|errors|wire)\.ts$/.test(name) || name.endsWith("/wire-check.ts"),
    );
    expect(wireCode).toEqual([]);
  });

  it("loads the request body builders only for rebuildRequest, which is synchronous (a few ms of import)", () => {
    const builders = [...modules].filter((name) => /^models\/providers\/.*-request\.ts$/.test(name)).sort();
    expect(builders).toEqual([
      "models/providers/anthropic-request.ts",
      "models/providers/gemini-request.ts",
      "models/providers/openai-chat-request.ts",
      "models/providers/openai-responses-request.ts",
      "models/providers/rebuild-request.ts",
    ]);
  });

  it("loads the price data (@pydantic/genai-prices, ~830 KB) only on a first priced response", () => {
    expect(packages.has("@pydantic/genai-prices")).toBe(false);
    const lazy = importGraph(join(source, "index.ts"), source, { dynamic: true });
    expect(lazy.packages.has("@pydantic/genai-prices")).toBe(true);
  });

  it("keeps test and store drivers and the optional peers out", () => {
    const optionalPeers = [
      "@modelcontextprotocol/sdk",
      "hono",
      "@hono/node-server",
      "quickjs-emscripten-core",
      "@opentelemetry/api",
    ];
    for (const name of ["better-sqlite3", "pg", "vitest", "typescript", "fast-check", ...optionalPeers]) {
      expect(packages.has(name)).toBe(false);
    }
  });
});
