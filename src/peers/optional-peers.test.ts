import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OptionalPeerMissingError } from "../errors/optional-peer-missing-error.js";
import { repoRoot } from "../test-support/packed-project.js";
import { loadPeers, OPTIONAL_PEERS, peerError } from "./optional-peers.js";

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe("optional peers", () => {
  it("turns Node's 'cannot find package' for one of the entry's peers into OptionalPeerMissingError", async () => {
    const error = await loadPeers("nous/mcp", () => import("@modelcontextprotocol/sdk-not-installed" as string)).catch(
      (caught: unknown) => caught,
    );
    // The name above is not the peer: Node's error passes through unchanged.
    expect(error).not.toBeInstanceOf(OptionalPeerMissingError);
    expect((error as { code?: string }).code).toBe("ERR_MODULE_NOT_FOUND");

    const notFound = Object.assign(
      new Error("Cannot find package 'hono' imported from /app/node_modules/nous/dist/inspector/hono.js"),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    const typed = await loadPeers("nous/inspector", () => Promise.reject(notFound)).catch((caught: unknown) => caught);
    expect(typed).toBeInstanceOf(OptionalPeerMissingError);
    expect(typed).toMatchObject({
      code: "optional_peer_missing",
      fault: "user",
      entry: "nous/inspector",
      packages: ["hono", "@hono/node-server"],
      missing: ["hono"],
      installCommand: "npm install hono@4 @hono/node-server@2",
      cause: notFound,
    });
    expect((typed as Error).message).toBe(
      "nous/inspector needs hono, which is not installed. Run: npm install hono@4 @hono/node-server@2",
    );
  });

  it("recognizes require.resolve's 'Cannot find module' and a subpath import, and nothing else", () => {
    const resolveError = Object.assign(new Error("Cannot find module 'quickjs-emscripten-core'\nRequire stack: …"), {
      code: "MODULE_NOT_FOUND",
    });
    expect(peerError("nous/code-mode", resolveError)?.missing).toEqual(["quickjs-emscripten-core"]);
    const subpath = Object.assign(new Error("Cannot find package '@modelcontextprotocol/sdk/client/index.js'"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    expect(peerError("nous/mcp", subpath)?.installCommand).toBe("npm install @modelcontextprotocol/sdk@1");
    // pg is installed but one of its own dependencies is not: not the user's missing peer.
    const dependency = Object.assign(
      new Error("Cannot find package 'pg-pool' imported from /app/node_modules/pg/x.js"),
      {
        code: "ERR_MODULE_NOT_FOUND",
      },
    );
    expect(peerError("nous/postgres", dependency)).toBeUndefined();
    expect(peerError("nous/postgres", new TypeError("pg is broken"))).toBeUndefined();
  });

  it("are package.json's optional peerDependencies (caret ranges), pinned exactly as devDependencies, and not dependencies", () => {
    const peers = Object.values(OPTIONAL_PEERS).flatMap((list) => list.map((peer) => peer.name));
    for (const name of [...peers, "better-sqlite3"]) {
      expect(manifest.peerDependencies[name], name).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(manifest.devDependencies[name], name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(manifest.dependencies[name], name).toBeUndefined();
    }
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual([...peers, "better-sqlite3"].sort());
    // The install command installs a version the peer range accepts.
    for (const list of Object.values(OPTIONAL_PEERS)) {
      for (const peer of list) {
        const wanted = peer.spec.slice(peer.name.length + 1);
        expect(manifest.peerDependencies[peer.name]?.slice(1).startsWith(`${wanted}.`), peer.spec).toBe(true);
      }
    }
    // Caret ranges, but the price data: every recorded cost names its exact version (see src/cost/price-source.ts).
    const exact = new Set(["@pydantic/genai-prices"]);
    for (const [name, range] of Object.entries(manifest.dependencies)) {
      expect(range, name).toMatch(exact.has(name) ? /^\d+\.\d+\.\d+$/ : /^\^\d+\.\d+\.\d+$/);
    }
  });
});
