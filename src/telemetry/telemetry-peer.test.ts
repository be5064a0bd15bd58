import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { OptionalPeerMissingError } from "../errors/optional-peer-missing-error.js";
import { loadPeers } from "../peers/optional-peers.js";
import { importGraph } from "../test-support/import-graph.js";

const source = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("@opentelemetry/api, the optional peer of nous/telemetry", () => {
  it("missing, fails loading nous/telemetry with OptionalPeerMissingError naming the install command", async () => {
    const notFound = Object.assign(
      new Error(
        "Cannot find package '@opentelemetry/api' imported from /app/node_modules/nous/dist/telemetry/otel-api.js",
      ),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    const error = await loadPeers("nous/telemetry", () => Promise.reject(notFound)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OptionalPeerMissingError);
    expect(error).toMatchObject({
      code: "optional_peer_missing",
      entry: "nous/telemetry",
      missing: ["@opentelemetry/api"],
      installCommand: "npm install @opentelemetry/api@1",
    });
  });

  it("is loaded by nous/telemetry and never by the core entry, whose agents take the telemetry option", () => {
    const core = importGraph(join(source, "index.ts"), source, { dynamic: true });
    expect(core.packages.has("@opentelemetry/api")).toBe(false);
    expect([...core.modules].filter((name) => name.startsWith("telemetry/"))).toEqual([]);
    const entry = importGraph(join(source, "telemetry.ts"), source, { dynamic: true });
    expect(entry.packages.has("@opentelemetry/api")).toBe(true);
  });
});
