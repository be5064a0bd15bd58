/**
 * `nous/conformance`: the `SessionStore` conformance suite for your own store, runnable from any
 * test runner (node:test, vitest, jest) or a plain script.
 *
 * @example
 * import { runStoreConformance } from "nous/conformance";
 * const report = await runStoreConformance(() => new MyStore());
 * if (!report.ok) for (const item of report.cases) if (!item.passed) console.error(item.name, item.error?.message);
 */
export { ConformanceCheckError } from "./errors/conformance-check-error.js";
export {
  type ConformanceCaseResult,
  type ConformanceReport,
  runStoreConformance,
  type StoreConformanceOptions,
} from "./store/conformance/run-conformance.js";
