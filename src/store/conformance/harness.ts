/**
 * The store conformance suite independent of any test runner: its cases, and the store each one
 * runs on (a fresh store per case, closed after it; reads checked by the installed event check).
 */
import { currentEventCheck } from "../../session/event-check.js";
import type { SessionStore } from "../session-store.js";
import { defineAppendCases } from "./append-cases.js";
import { defineBlobCases } from "./blob-cases.js";
import type { ConformanceContext } from "./conformance-context.js";
import { defineForkCases } from "./fork-cases.js";
import { defineLeaseCases } from "./lease-cases.js";
import { defineListCases } from "./list-cases.js";
import { definePayloadCases } from "./payload-cases.js";
import { defineReadCases } from "./read-cases.js";
import { type ConformanceCase, collectCases } from "./registry.js";
import { defineVerifyCases } from "./verify-cases.js";

export type MakeStore = () => SessionStore | Promise<SessionStore>;
export type ReopenStore = (store: SessionStore) => SessionStore | Promise<SessionStore>;

/** Holds the store of the running case: `setUp` opens a fresh one, `tearDown` closes it. */
export class ConformanceHarness {
  #current: SessionStore | undefined;
  readonly cases: readonly ConformanceCase[];

  constructor(
    private readonly makeStore: MakeStore,
    reopen: ReopenStore | undefined,
  ) {
    const store = () => {
      if (this.#current === undefined) throw new Error("no store: the case runs outside setUp/tearDown");
      return this.#current;
    };
    const context: ConformanceContext = {
      store,
      reopen:
        reopen === undefined
          ? undefined
          : async () => {
              const closed = store();
              await closed.close();
              this.#current = checkingReads(await reopen(unwrapped(closed)));
            },
    };
    this.cases = collectCases(() => {
      defineAppendCases(context);
      defineReadCases(context);
      definePayloadCases(context);
      defineListCases(context);
      defineForkCases(context);
      defineVerifyCases(context);
      defineLeaseCases(context);
      defineBlobCases(context);
    });
  }

  async setUp(): Promise<void> {
    this.#current = checkingReads(await this.makeStore());
  }

  async tearDown(): Promise<void> {
    const store = this.#current;
    this.#current = undefined;
    await store?.close();
  }
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
