import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { LOG_SCHEMA_FILE } from "../test-support/log-schema-check.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("the session log schema is published with the package", () => {
  it("is in the packed tarball", async () => {
    const { stdout } = await promisify(execFile)("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as { files: { path: string; size: number }[] }[];
    const file = packed?.files.find((entry) => entry.path === "schema/session-log.json");
    expect(file?.size).toBe(statSync(LOG_SCHEMA_FILE).size);
  });

  it("resolves as nous/schema/session-log.json and loads as JSON", async () => {
    const resolved = createRequire(import.meta.url).resolve("nous/schema/session-log.json");
    expect(resolved).toBe(LOG_SCHEMA_FILE);
    const loaded = await import("nous/schema/session-log.json", { with: { type: "json" } });
    expect(loaded.default).toMatchObject({ title: "Nous session log", type: "array" });
  });
});
