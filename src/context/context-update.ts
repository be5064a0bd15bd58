import { getLogger } from "../logging/logger.js";
import type { ContextOperation, DepsOperation } from "./operations.js";
import { isDepsOperation } from "./operations.js";
import { checkEventType, checkKey, checkMergeValue, foldOperations } from "./reducer.js";

/** Keys of `D` (string keys only). */
export type DepsKey<D> = keyof D & string;

/** Keys of `D` whose value is a list (or unknown, for untyped deps). */
export type ListKey<D> = {
  [K in DepsKey<D>]-?: unknown extends D[K] ? K : NonNullable<D[K]> extends readonly unknown[] ? K : never;
}[DepsKey<D>];

/** Keys of `D` whose value is a plain object (or unknown). */
export type ObjectKey<D> = {
  [K in DepsKey<D>]-?: unknown extends D[K]
    ? K
    : NonNullable<D[K]> extends readonly unknown[]
      ? never
      : NonNullable<D[K]> extends Record<string, unknown>
        ? K
        : never;
}[DepsKey<D>];

/** The element type of the list at `D[K]`. */
export type ListItem<D, K extends keyof D> = unknown extends D[K]
  ? unknown
  : NonNullable<D[K]> extends readonly (infer I)[]
    ? I
    : never;

/** A recursive partial: what `merge` accepts for a key. */
export type DeepPartial<T> = unknown extends T
  ? Record<string, unknown>
  : T extends readonly unknown[]
    ? T
    : T extends Record<string, unknown>
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

/** What `apply` needs from a context: its deps, a way to record a deps change, and its own `logEvent`. */
export interface UpdatableContext<D, Self> {
  readonly deps: D;
  withContextUpdate(deps: D, operations: readonly DepsOperation[], source?: UpdateSource): Self;
  logEvent(type: string, data: unknown): Self;
}

/** Which tool call an update came from, recorded with it. */
export interface UpdateSource {
  readonly toolCallId?: string;
  readonly toolName?: string;
  /** The call that made this one, for an update of a nested call (code mode). */
  readonly parentToolCallId?: string;
  /** "initial" marks the state deps a session started with; absent for tool updates. */
  readonly origin?: "initial";
}

/** What `applyToRunContext` needs from a run context. */
export interface DepsHolder<D, Self> {
  readonly deps: D;
  withDeps(deps: D): Self;
}

interface Node {
  readonly operation: ContextOperation;
  readonly previous: Node | undefined;
}

const empty: readonly ContextOperation[] = Object.freeze([]);

/**
 * An immutable, ordered list of operations a tool returns to change the run's deps and to record
 * bookkeeping events. Builders never mutate: each returns a new update (in O(1)).
 *
 * @example
 * type Deps = { count: number; todos: string[] };
 * const update = ContextUpdate.new<Deps>()
 *   .set("count", 2)
 *   .append("todos", "buy milk")
 *   .logEvent("audit", { by: "add_todo" });
 * update.toDeps({ count: 1, todos: [] }); // { count: 2, todos: ["buy milk"] }
 */
export class ContextUpdate<D extends object = Record<string, unknown>> {
  readonly #last: Node | undefined;
  readonly #size: number;
  #materialized: readonly ContextOperation[] | undefined;

  private constructor(last: Node | undefined, size: number) {
    this.#last = last;
    this.#size = size;
  }

  /** An empty update. Pass your deps type to have keys and values checked at compile time. */
  static new<D extends object = Record<string, unknown>>(): ContextUpdate<D> {
    return new ContextUpdate<D>(undefined, 0);
  }

  /** An update holding `operations`, for example read back from a session log. They are validated when folded. */
  static fromOperations<D extends object = Record<string, unknown>>(
    operations: Iterable<ContextOperation>,
  ): ContextUpdate<D> {
    let update = ContextUpdate.new<D>();
    for (const operation of operations) update = update.#add(operation);
    return update;
  }

  /** Replace the value at `key`. */
  set<K extends DepsKey<D>>(key: K, value: D[K]): ContextUpdate<D> {
    return this.#add({ op: "set", key: checkKey("set", key), value });
  }

  /** Deep-merge a plain object into the value at `key`. */
  merge<K extends ObjectKey<D>>(key: K, value: DeepPartial<NonNullable<D[K]>>): ContextUpdate<D> {
    const checked = checkKey("merge", key);
    return this.#add({ op: "merge", key: checked, value: checkMergeValue(checked, value) });
  }

  /** Append `item` to the list at `key`; an absent, null or undefined value starts a new list. */
  append<K extends ListKey<D>>(key: K, item: ListItem<D, K>): ContextUpdate<D> {
    return this.#add({ op: "append", key: checkKey("append", key), item });
  }

  /** Remove `key` from deps. Deleting an absent key does nothing. */
  delete<K extends DepsKey<D>>(key: K): ContextUpdate<D> {
    return this.#add({ op: "delete", key: checkKey("delete", key) });
  }

  /** Record a bookkeeping event in the session log. It never reaches the model and touches no deps. */
  logEvent(type: string, data: unknown = {}): ContextUpdate<D> {
    return this.#add({ op: "log_event", type: checkEventType(type), data });
  }

  /** True when the update holds no operation. */
  isEmpty(): boolean {
    return this.#size === 0;
  }

  /** The number of operations. */
  get size(): number {
    return this.#size;
  }

  /** Every operation, in the order it was added. */
  operations(): readonly ContextOperation[] {
    if (this.#materialized === undefined) {
      const list = new Array<ContextOperation>(this.#size);
      let index = this.#size;
      for (let node = this.#last; node !== undefined; node = node.previous) list[--index] = node.operation;
      this.#materialized = this.#size === 0 ? empty : Object.freeze(list);
    }
    return this.#materialized;
  }

  /** The operations that change deps, in order (log events skipped). */
  depsOperations(): readonly DepsOperation[] {
    return this.operations().filter(isDepsOperation);
  }

  /** The `[type, data]` pairs of the log events, in order; deps operations skipped. */
  logEvents(): readonly (readonly [type: string, data: unknown])[] {
    const events: [string, unknown][] = [];
    for (const operation of this.operations()) {
      if (operation.op === "log_event") events.push([operation.type, operation.data]);
    }
    return events;
  }

  /**
   * The deps after folding every operation over `initial`. The one reducer: everything that applies an
   * update goes through here. `initial` is never mutated; on a bad operation it throws a
   * `ContextUpdateError` and nothing is applied.
   */
  toDeps(initial: D): D {
    return foldOperations(initial, this.operations()) as D;
  }

  /**
   * A new agent context: deps operations first (recorded as one `context_update` event), then each
   * log event appended in order through the context's own `logEvent`. Messages are untouched.
   */
  apply<C extends UpdatableContext<D, C>>(context: C, source?: UpdateSource): C {
    return applyFolded(this, context, source, (deps) => this.toDeps(deps));
  }

  /**
   * A new run context with the deps operations applied. A run context has no session log, so log
   * events are dropped, with one warning naming every dropped type.
   */
  applyToRunContext<C extends DepsHolder<D, C>>(runContext: C): C {
    const dropped = this.logEvents().map(([type]) => type);
    const next = runContext.withDeps(this.toDeps(runContext.deps));
    if (dropped.length > 0) {
      getLogger().warn(
        `applyToRunContext dropped ${dropped.length} log event(s) (${dropped.join(", ")}): a run context has no session log; run the tool through the agent runner to keep them`,
        { droppedEventTypes: dropped },
      );
    }
    return next;
  }

  #add(operation: ContextOperation): ContextUpdate<D> {
    return new ContextUpdate<D>({ operation: Object.freeze(operation), previous: this.#last }, this.#size + 1);
  }
}

/**
 * What `apply` does, with the fold passed in: the deps operations as one `context_update` event
 * (deps = `fold(context.deps)`, which folds all of the update's operations through the one reducer),
 * then each log event through the context's own `logEvent`. The runner passes a fold that writes
 * in place what its run built (`foldOwned`); everything else uses `apply`.
 */
export function applyFolded<D extends object, C extends UpdatableContext<D, C>>(
  update: ContextUpdate<D>,
  context: C,
  source: UpdateSource | undefined,
  fold: (deps: D) => D,
): C {
  let next = context;
  const depsOperations = update.depsOperations();
  if (depsOperations.length > 0) next = next.withContextUpdate(fold(context.deps), depsOperations, source);
  for (const [type, data] of update.logEvents()) next = next.logEvent(type, data);
  return next;
}
