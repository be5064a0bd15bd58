import type { SessionStore } from "../session-store.js";
import { ConformanceHarness } from "./harness.js";

/** How one case of the suite went. */
export interface ConformanceCaseResult {
  /** "append › rejects events not numbered expectedLastSeq + 1, …": the group, then what it checks. */
  readonly name: string;
  readonly passed: boolean;
  /** Why it failed: a `ConformanceCheckError` (a check), or what the store threw. */
  readonly error?: Error;
  readonly durationMs: number;
}

/** The outcome of `runStoreConformance`: every case, in the suite's order. */
export interface ConformanceReport {
  /** True when every case that ran passed. */
  readonly ok: boolean;
  readonly passed: number;
  readonly failed: number;
  readonly cases: readonly ConformanceCaseResult[];
}

export interface StoreConformanceOptions {
  /**
   * Opens a new instance on the data of `store` (which the suite has closed): a process restart.
   * Give it for a persistent store, so the suite also checks what must survive one (leases' fencing
   * tokens are never reused). Without it those cases check one instance only.
   */
  readonly reopen?: (store: SessionStore) => SessionStore | Promise<SessionStore>;
  /** Runs only the cases whose name matches (default: all of them). */
  readonly only?: RegExp;
  /** A case that takes longer fails (default 30 000 ms). */
  readonly timeoutMs?: number;
  /** Called after each case (to print progress). */
  readonly onCase?: (result: ConformanceCaseResult) => void;
}

/**
 * Runs the `SessionStore` conformance suite — the cases Nous's own stores (memory, SQLite on each
 * driver, PostgreSQL) pass — against your store, with no test runner needed: each case gets a fresh
 * store from `makeStore` (holding no sessions; the suite closes it after the case), and the report
 * lists every case with its error. Cases run one at a time.
 *
 * @example
 * import { test } from "node:test";
 * import assert from "node:assert/strict";
 * import { runStoreConformance } from "nous/conformance";
 *
 * test("MyStore is a SessionStore", async () => {
 *   const report = await runStoreConformance(() => new MyStore());
 *   assert.deepEqual(report.cases.filter((item) => !item.passed).map((item) => `${item.name}: ${item.error?.message}`), []);
 * });
 */
export async function runStoreConformance(
  makeStore: () => SessionStore | Promise<SessionStore>,
  options: StoreConformanceOptions = {},
): Promise<ConformanceReport> {
  const harness = new ConformanceHarness(makeStore, options.reopen);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const cases: ConformanceCaseResult[] = [];
  for (const item of harness.cases) {
    const name = [...item.group, item.title].join(" › ");
    if (options.only !== undefined && !options.only.test(name)) continue;
    const started = performance.now();
    let error: Error | undefined;
    try {
      await harness.setUp();
      await withTimeout(Promise.resolve().then(item.run), timeoutMs, name);
    } catch (caught) {
      error = asError(caught);
    }
    try {
      await harness.tearDown();
    } catch (caught) {
      error ??= asError(caught);
    }
    const result: ConformanceCaseResult = {
      name,
      passed: error === undefined,
      ...(error === undefined ? {} : { error }),
      durationMs: Math.round(performance.now() - started),
    };
    cases.push(result);
    options.onCase?.(result);
  }
  const failed = cases.filter((item) => !item.passed).length;
  return { ok: failed === 0, passed: cases.length - failed, failed, cases };
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

function withTimeout(work: Promise<void>, ms: number, name: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`"${name}" did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
