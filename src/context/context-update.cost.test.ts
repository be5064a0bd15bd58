import { describe, expect, it } from "vitest";
import { ContextUpdate } from "./context-update.js";

function timeOf(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

function buildAndFold(count: number): number {
  return timeOf(() => {
    let update = ContextUpdate.new<{ list: number[] }>();
    for (let index = 0; index < count; index++) update = update.append("list", index);
    const deps = update.toDeps({ list: [] });
    if (deps.list.length !== count) throw new Error("lost appends");
  });
}

describe("ContextUpdate cost", () => {
  it("building and folding 100,000 appends grows linearly, not quadratically", () => {
    buildAndFold(20_000); // warm up the JIT
    const small = Math.max(buildAndFold(25_000), 0.5);
    const large = buildAndFold(100_000);
    // 4x the work: linear is ~4x, quadratic ~16x. The bound is generous to absorb machine noise.
    expect(large / small).toBeLessThan(10);
    // A quadratic builder takes minutes here; a linear one takes milliseconds.
    expect(large).toBeLessThan(5_000);
  });
});
