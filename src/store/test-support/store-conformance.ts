import { afterAll, afterEach, beforeEach, describe, it } from "vitest";
import { ConformanceHarness } from "../conformance/harness.js";
import type { SessionStore } from "../session-store.js";

/** What `describeStoreConformance` needs to know about a backend. */
export interface StoreConformanceOptions {
  /** Names the suite (`"sqlite"`, `"postgres (group commit)"`). */
  readonly name: string;
  /** An open store holding no sessions, called before every test; the suite closes it after the test. */
  readonly createStore: () => SessionStore | Promise<SessionStore>;
  /**
   * Opens a new instance on the data of `store` (which the suite has closed): a restart. Persistent
   * backends give it, so the suite checks what must survive one (fencing tokens are never reused).
   */
  readonly reopen?: (store: SessionStore) => SessionStore | Promise<SessionStore>;
  /** Runs once after the whole suite (drop a schema, remove a temp dir). */
  readonly cleanup?: () => void | Promise<void>;
}

/**
 * The behavioural contract of `SessionStore` as a vitest suite, for this repository's backends:
 * every case of the conformance suite (src/store/conformance/, the same cases `runStoreConformance`
 * of `nous/conformance` runs for users) as a vitest test, with no skips. Call it from a test file.
 */
export function describeStoreConformance(options: StoreConformanceOptions): void {
  const harness = new ConformanceHarness(options.createStore, options.reopen);
  describe(`SessionStore conformance: ${options.name}`, () => {
    beforeEach(() => harness.setUp());
    afterEach(() => harness.tearDown());
    if (options.cleanup !== undefined) afterAll(options.cleanup);
    const groups = new Map<string, typeof harness.cases>();
    for (const item of harness.cases) {
      const key = item.group.join(" › ");
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    for (const [group, cases] of groups) {
      describe(group, () => {
        for (const item of cases) it(item.title, () => item.run());
      });
    }
  });
}
