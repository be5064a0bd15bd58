import { afterAll, afterEach, beforeEach, describe } from "vitest";
import { currentEventCheck } from "../session/event-check.js";
import { defineAppendCases } from "./conformance/append-cases.js";
import type { ConformanceContext } from "./conformance/conformance-context.js";
import { defineForkCases } from "./conformance/fork-cases.js";
import { defineLeaseCases } from "./conformance/lease-cases.js";
import { defineListCases } from "./conformance/list-cases.js";
import { definePayloadCases } from "./conformance/payload-cases.js";
import { defineReadCases } from "./conformance/read-cases.js";
import { defineVerifyCases } from "./conformance/verify-cases.js";
import type { SessionStore } from "./session-store.js";

/** What `runStoreConformance` needs to know about a backend. */
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
 * The behavioural contract of `SessionStore` as a vitest suite. Every backend's test file calls it
 * with no skips, so every backend is held to the same behaviour (`verify` included: the suite
 * expects a store to implement it). Import it from a test file only
 * (it defines `describe`/`it` blocks).
 *
 * @example
 * // my-store.test.ts
 * import { runStoreConformance } from "nous/store-conformance";
 * runStoreConformance({ name: "my store", createStore: () => new MyStore() });
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  describe(`SessionStore conformance: ${options.name}`, () => {
    let current: SessionStore | undefined;
    const store = () => {
      if (current === undefined) throw new Error("no store: createStore has not run");
      return current;
    };
    const reopen = options.reopen;
    const context: ConformanceContext = {
      store,
      reopen:
        reopen === undefined
          ? undefined
          : async () => {
              const closed = store();
              await closed.close();
              current = checkingReads(await reopen(unwrapped(closed)));
            },
    };
    beforeEach(async () => {
      current = checkingReads(await options.createStore());
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });
    if (options.cleanup !== undefined) afterAll(options.cleanup);

    defineAppendCases(context);
    defineReadCases(context);
    definePayloadCases(context);
    defineListCases(context);
    defineForkCases(context);
    defineVerifyCases(context);
    defineLeaseCases(context);
  });
}

const targets = new WeakMap<SessionStore, SessionStore>();

/**
 * The store, with every event `read` returns passed through the installed event check (the test
 * setup's log schema validator; see `setEventCheck`): what a store gives back must be a valid log.
 */
function checkingReads(store: SessionStore): SessionStore {
  const checked = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === "read") {
        return async (...args: Parameters<SessionStore["read"]>) => {
          const events = await target.read(...args);
          const check = currentEventCheck();
          if (check !== undefined) for (const event of events) check(event);
          return events;
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  targets.set(checked, store);
  return checked;
}

function unwrapped(store: SessionStore): SessionStore {
  return targets.get(store) ?? store;
}
