import { beforeEach, describe, expect, it } from "vitest";
import { parseSecretPaths, placeholderOf, redactOperation, restoreSecretPaths } from "./secret-paths.js";
import { forgetSecretsForTesting, redactText } from "./secret-registry.js";

beforeEach(() => forgetSecretsForTesting());

describe("secret deps paths", () => {
  const paths = parseSecretPaths(["apiKey", "db.password"]);

  it("records set, merge and append on a secret path with a placeholder and registers the value", () => {
    expect(redactOperation({ op: "set", key: "apiKey", value: "key-0001-xyz" }, paths)).toEqual({
      op: "set",
      key: "apiKey",
      value: placeholderOf("key-0001-xyz"),
    });
    expect(redactText("uses key-0001-xyz")).toBe(`uses ${placeholderOf("key-0001-xyz")}`);
    expect(redactOperation({ op: "merge", key: "db", value: { host: "h", password: "pw-123456" } }, paths)).toEqual({
      op: "merge",
      key: "db",
      value: { host: "h", password: placeholderOf("pw-123456") },
    });
    expect(redactOperation({ op: "append", key: "apiKey", item: "key-0002-xyz" }, paths)).toEqual({
      op: "append",
      key: "apiKey",
      item: placeholderOf("key-0002-xyz"),
    });
  });

  it("leaves other keys and operations as they are", () => {
    const operation = { op: "set", key: "db", value: { host: "h" } } as const;
    expect(redactOperation(operation, paths)).toBe(operation);
    const other = { op: "set", key: "todos", value: [] } as const;
    expect(redactOperation(other, paths)).toBe(other);
  });

  it("restores secret paths from the caller's deps over the log's placeholders", () => {
    const state: Record<string, unknown> = {
      apiKey: "[secret:sha256:000000000000]",
      db: { host: "h", password: "[x]" },
    };
    restoreSecretPaths(state, { apiKey: "real-key-1", db: { password: "real-pw-1" } }, paths);
    expect(state).toEqual({ apiKey: "real-key-1", db: { host: "h", password: "real-pw-1" } });
  });
});
