import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextUpdateError } from "../errors/context-update-error.js";
import { snapshot } from "../test-support/capture-logger.js";
import { ContextUpdate } from "./context-update.js";
import type { ContextOperation } from "./operations.js";
import { isPlainObject } from "./plain-object.js";

type Deps = Record<string, unknown>;

/** The reference semantics, written as plainly as possible: copy on every write. */
function naiveMerge(left: Deps, right: Deps): Deps {
  const result: Deps = Object.create(Object.getPrototypeOf(left));
  for (const key of Object.keys(left)) Object.defineProperty(result, key, own(left[key]));
  for (const key of Object.keys(right)) {
    const l = Object.hasOwn(result, key) ? result[key] : undefined;
    const r = right[key];
    Object.defineProperty(result, key, own(isPlainObject(l) && isPlainObject(r) ? naiveMerge(l, r) : r));
  }
  return result;
}

/** A structural form that tells prototypes and own keys apart, even "constructor" and "__proto__". */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return ["array", value.map(canonical)];
  if (typeof value === "object" && value !== null) {
    const kind = Object.getPrototypeOf(value) === null ? "null-prototype" : "object";
    return [kind, Object.keys(value).map((key) => [key, canonical((value as Deps)[key])])];
  }
  return value;
}

function own(value: unknown): PropertyDescriptor {
  return { value, writable: true, enumerable: true, configurable: true };
}

function copy(map: Deps): Deps {
  const result: Deps = Object.create(Object.getPrototypeOf(map));
  for (const key of Object.keys(map)) Object.defineProperty(result, key, own(map[key]));
  return result;
}

function naiveFold(initial: Deps, operations: readonly ContextOperation[]): Deps {
  let deps: Deps = copy(initial);
  for (const operation of operations) {
    if (operation.op === "log_event") continue;
    const current = Object.hasOwn(deps, operation.key) ? deps[operation.key] : undefined;
    const next: Deps = copy(deps);
    switch (operation.op) {
      case "set":
        Object.defineProperty(next, operation.key, own(operation.value));
        break;
      case "merge":
        Object.defineProperty(
          next,
          operation.key,
          own(isPlainObject(current) ? naiveMerge(current, operation.value) : operation.value),
        );
        break;
      case "append":
        if (current === undefined || current === null)
          Object.defineProperty(next, operation.key, own([operation.item]));
        else if (Array.isArray(current)) Object.defineProperty(next, operation.key, own([...current, operation.item]));
        else throw new Error("append onto a non-list");
        break;
      case "delete":
        delete next[operation.key];
        break;
    }
    deps = next;
  }
  return deps;
}

const key = fc.constantFrom("a", "b", "c", "list", "__proto__", "constructor");
const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant(null), fc.boolean());
const value = fc.letrec<{ value: unknown; map: Deps }>((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("value"), { maxLength: 3 }), tie("map")),
  map: fc.dictionary(key, tie("value"), { maxKeys: 3 }),
}));

const operation: fc.Arbitrary<ContextOperation> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key, value: value.value }),
  fc.record({ op: fc.constant("merge" as const), key, value: value.map }),
  fc.record({ op: fc.constant("append" as const), key, item: value.value }),
  fc.record({ op: fc.constant("delete" as const), key }),
  fc.record({ op: fc.constant("log_event" as const), type: fc.constantFrom("audit", "x"), data: leaf }),
);

describe("toDeps against a naive reference fold", () => {
  it("agrees on 10,000 random operation sequences and never changes the initial map", () => {
    fc.assert(
      fc.property(value.map, fc.array(operation, { maxLength: 30 }), (initial, operations) => {
        const before = snapshot(initial);
        let expected: Deps | Error;
        try {
          expected = naiveFold(initial, operations);
        } catch (error) {
          expected = error as Error;
        }
        const update = ContextUpdate.fromOperations(operations);
        if (expected instanceof Error) {
          expect(() => update.toDeps(initial)).toThrow(ContextUpdateError);
        } else {
          expect(canonical(update.toDeps(initial))).toEqual(canonical(expected));
        }
        expect(canonical(initial)).toEqual(canonical(before));
      }),
      { numRuns: 10_000 },
    );
  });

  it("agrees when the update is built through the builder methods", () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 20 }), (operations) => {
        let update = ContextUpdate.new();
        for (const op of operations) {
          if (op.op === "set") update = update.set(op.key, op.value);
          else if (op.op === "merge") update = update.merge(op.key, op.value);
          else if (op.op === "append") update = update.append(op.key, op.item);
          else if (op.op === "delete") update = update.delete(op.key);
          else update = update.logEvent(op.type, op.data);
        }
        expect(update.operations()).toEqual(operations);
        let expected: unknown;
        try {
          expected = naiveFold({}, operations);
        } catch {
          expected = ContextUpdateError;
        }
        if (expected === ContextUpdateError) expect(() => update.toDeps({})).toThrow(ContextUpdateError);
        else expect(canonical(update.toDeps({}))).toEqual(canonical(expected));
      }),
      { numRuns: 2_000 },
    );
  });
});
