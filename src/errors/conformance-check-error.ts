import { NousError } from "./nous-error.js";

/**
 * One check of the store conformance suite (`runStoreConformance` from `nous/conformance`) failed:
 * the store under test does not behave as a `SessionStore` must. The message says what was expected
 * and what came; the report lists it under the case's name.
 *
 * @example
 * const report = await runStoreConformance(() => new MyStore());
 * for (const item of report.cases) if (!item.passed) console.error(item.name, item.error?.message);
 */
export class ConformanceCheckError extends NousError {
  readonly code = "store_conformance_failed";
  readonly fault = "store" as const;
}
