import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    typecheck: { include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    // Checks every session event a test appends against schema/session-log.json.

    testTimeout: 30_000,
  },
});
