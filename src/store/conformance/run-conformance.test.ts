import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ConformanceCheckError } from "../../errors/conformance-check-error.js";
import type { SessionEvent } from "../../session/events.js";
import { repoRoot } from "../../test-support/packed-project.js";
import { MemoryStore } from "../memory-store.js";
import { expect as check, equals, matchesObject } from "./expect.js";
import { runStoreConformance } from "./run-conformance.js";

/** A store that forgets `sessionId` on the events it reads back: a plausible bug in a custom store. */
class ForgetfulStore extends MemoryStore {
  override async read(...args: Parameters<MemoryStore["read"]>): Promise<SessionEvent[]> {
    const events = await super.read(...args);
    return events.map(({ sessionId: _dropped, ...rest }) => rest as SessionEvent);
  }
}

describe("runStoreConformance (nous/conformance), without a test runner", () => {
  it("passes MemoryStore on every case, a fresh store per case, each closed after it", async () => {
    let opened = 0;
    let closed = 0;
    const report = await runStoreConformance(() => {
      opened++;
      const store = new MemoryStore();
      const close = store.close.bind(store);
      store.close = async () => {
        closed++;
        await close();
      };
      return store;
    });
    expect(report.failed).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.passed).toBe(report.cases.length);
    expect(report.cases.length).toBeGreaterThan(45);
    expect(opened).toBe(report.cases.length);
    expect(closed).toBeGreaterThanOrEqual(report.cases.length);
    expect(report.cases.map((item) => item.name)).toContain(
      "append › creates a session with expectedLastSeq 0 and reads its events back in order, with sessionId",
    );
  }, 120_000);

  it("reports the cases a faulty store fails, each with the check that failed", async () => {
    const seen: string[] = [];
    const report = await runStoreConformance(() => new ForgetfulStore(), {
      only: /^(append|read) ›/,
      onCase: (item) => seen.push(item.name),
    });
    expect(report.ok).toBe(false);
    expect(report.failed).toBeGreaterThan(0);
    expect(report.cases.every((item) => /^(append|read) ›/.test(item.name))).toBe(true);
    expect(seen).toEqual(report.cases.map((item) => item.name));
    const first = report.cases.find((item) => item.name.startsWith("append › creates a session"));
    expect(first?.passed).toBe(false);
    expect(first?.error).toBeInstanceOf(ConformanceCheckError);
    expect(first?.error?.message).toMatch(/to equal/);
    expect(first?.error).toMatchObject({ code: "store_conformance_failed", fault: "store" });
  }, 120_000);

  it("fails a case that does not finish within timeoutMs", async () => {
    const report = await runStoreConformance(
      () => {
        const store = new MemoryStore();
        store.lastSeq = () => new Promise<number>(() => {});
        return store;
      },
      { only: /^append › creates a session/, timeoutMs: 200 },
    );
    expect(report.cases).toHaveLength(1);
    expect(report.cases[0]?.error?.message).toMatch(/did not finish within 200 ms/);
  });

  it("runs under node:test from the package's entry point (the README's example)", async () => {
    // Inside the package, so that "nous" resolves to it (package self-reference, to the built dist/).
    const folder = mkdtempSync(join(repoRoot, ".tmp-conformance-"));
    const file = join(folder, "my-store.test.mjs");
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const example = /```js\n(\/\/ my-store\.test\.mjs[^\n]*\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain('from "nous/conformance"');
    writeFileSync(file, example ?? "");
    const { stdout } = await promisify(execFile)(process.execPath, ["--test", file], {
      cwd: repoRoot,
      timeout: 120_000,
    }).finally(() => rmSync(folder, { recursive: true, force: true }));
    expect(stdout).toMatch(/# pass 1\b/);
    expect(stdout).toMatch(/# fail 0\b/);
  }, 150_000);
});

describe("the suite's own expect", () => {
  it("compares like vitest: undefined properties are absent, arrays by position, objects by subset for toMatchObject", () => {
    expect(equals({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(equals([1, 2], [2, 1])).toBe(false);
    expect(equals({ a: { b: [1] } }, { a: { b: [1, 2] } })).toBe(false);
    expect(matchesObject({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true);
    expect(matchesObject({ a: [{ x: 1, y: 2 }] }, { a: [{ x: 1 }] })).toBe(true);
    expect(matchesObject({ a: [{ x: 1 }, { x: 2 }] }, { a: [{ x: 1 }] })).toBe(false);
    expect(matchesObject(new RangeError("m"), { message: "m" })).toBe(true);
  });

  it("throws ConformanceCheckError on a failed check, with the label", async () => {
    expect(() => check(1, "seq").toBe(2)).toThrow(ConformanceCheckError);
    expect(() => check(1, "seq").toBe(2)).toThrow("seq: expected 1 to be 2");
    expect(() => check({ runId: "r" }).not.toHaveProperty("runId")).toThrow(/not to have property "runId"/);
    expect(() => check("abc").toHaveLength(2)).toThrow(ConformanceCheckError);
    expect(() => check("abc").toMatch(/^x/)).toThrow(ConformanceCheckError);
    await expect(check(Promise.resolve(1)).rejects.toThrow()).rejects.toThrow(/expected the promise to reject/);
    await expect(check(Promise.reject(new TypeError("no"))).rejects.toBeInstanceOf(RangeError)).rejects.toThrow(
      /expected a rejection with RangeError, got TypeError: no/,
    );
    await check(Promise.reject(Object.assign(new Error("x"), { code: "c" }))).rejects.toMatchObject({ code: "c" });
    check(3).toBeGreaterThan(2);
    check(undefined).toBeUndefined();
  });
});
